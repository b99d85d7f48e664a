import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { consumersOf, RetiredConsumers, Streams } from '@oasis198/contracts';
import {
  CONFIG,
  deleteRetiredConsumers,
  ensureTimerStream,
  JetStreamService,
  keepPublishedStream,
  LOGGER,
  type Logger,
} from '@oasis198/service-kit';
import type { RoomsConfig } from '../config';

/**
 * The streams rooms uses, set up at start-up: GAMES and the room log (which rooms publishes to:
 * their limits kept as configured and their room watched), TIMERS (room schedules) and USERS
 * (account deletions). The other providers wait for ready() before they use a stream.
 */
@Injectable()
export class RoomStreams implements OnModuleInit, OnApplicationShutdown {
  private setUp?: Promise<void>;
  private retiredSweep?: NodeJS.Timeout;

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: RoomsConfig,
  ) {}

  onModuleInit(): Promise<void> {
    return this.ready();
  }

  /** Resolves once every stream is set up (once per process, whoever asks first). */
  ready(): Promise<void> {
    this.setUp ??= this.setUpStreams();
    return this.setUp;
  }

  onApplicationShutdown(): void {
    clearInterval(this.retiredSweep);
  }

  private async setUpStreams(): Promise<void> {
    const { config, jetstream, logger } = this;
    // GAMES is an interest stream: its readers' consumers are created first, or it stores nothing for them.
    const games = {
      ...Streams.games,
      maxBytes: config.GAMES_STREAM_MAX_BYTES,
      maxMsgSize: config.GAMES_STREAM_MAX_MSG_SIZE,
    };
    await keepPublishedStream(jetstream, games, config, consumersOf(Streams.games.name));
    const jsm = await jetstream.nc.jetstreamManager();
    // At start-up, and again every RETIRED_CONSUMERS_SWEEP_MS: during a rolling upgrade, a timer
    // replica of the earlier release may create its consumer again after this one deleted it.
    await deleteRetiredConsumers(jsm, RetiredConsumers, logger);
    this.retiredSweep = setInterval(() => {
      deleteRetiredConsumers(jsm, RetiredConsumers, logger).catch((error: unknown) =>
        logger.warn({ err: error }, 'deleting retired consumers failed; the next sweep retries'),
      );
    }, config.RETIRED_CONSUMERS_SWEEP_MS);
    this.retiredSweep.unref();
    const roomLog = {
      ...Streams.roomLog,
      maxBytes: config.ROOMLOG_STREAM_MAX_BYTES,
      maxMsgSize: config.ROOMLOG_STREAM_MAX_MSG_SIZE,
    };
    await keepPublishedStream(jetstream, roomLog, config);
    await ensureTimerStream(jsm, config.TIMERS_STREAM_MAX_BYTES, jetstream.streamReplicas);
    await jetstream.ensureStreams([Streams.users]);
  }
}
