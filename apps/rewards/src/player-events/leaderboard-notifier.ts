import { Inject, Injectable } from '@nestjs/common';
import { Broadcasts, type LeaderboardChanged } from '@oasis198/contracts';
import { JetStreamService, LOGGER, type Logger } from '@oasis198/service-kit';

/** Tells whoever shows a leaderboard that records changed. */
export abstract class LeaderboardNotifier {
  abstract changed(change: LeaderboardChanged): void;
}

/**
 * The notice as a core NATS broadcast, which every gateway replica hears and pushes to the
 * leaderboards open in browsers. Not stored: a browser that misses one refetches when its stream
 * reopens, and the payment it announces is in the database already.
 */
@Injectable()
export class NatsLeaderboardNotifier extends LeaderboardNotifier {
  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  changed(change: LeaderboardChanged): void {
    try {
      this.jetstream.broadcast(Broadcasts.leaderboardChanged, change);
    } catch (error) {
      // A closed connection while stopping: the game is paid; only the live notice is lost.
      this.logger.warn({ err: error, gameId: change.gameId }, 'could not announce a leaderboard change');
    }
  }
}
