import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Consumers, EventTypes, gameFinishedSchema, parseWith, Streams } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';
import { ArenaService } from './arena.service';

/**
 * Most game results scored in one write. A batch takes what arrived while the ones before it were
 * in hand: one game while the consumer keeps up, more only when results come faster than the
 * database answers (each batch is a few round trips, whatever its size).
 */
const GAMES_BATCH = 32;
/** Batches in hand at once on each replica (their games are of different rooms). */
const BATCHES_AT_ONCE = 2;

/** game.finished from GAMES, through the tournaments' own durable consumer (shared by its replicas). */
@Injectable()
export class GamesConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly jetstream: JetStreamService,
    private readonly arenas: ArenaService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jetstream.ensureStreams([Streams.games]);
    await this.jetstream.consumeBatches(
      Consumers.tournamentsGames,
      (batch) =>
        this.arenas.onGamesFinished(
          batch.flatMap(({ event }) =>
            event.type === EventTypes.gameFinished ? [parseWith(gameFinishedSchema, event.data)] : [],
          ),
        ),
      { concurrency: BATCHES_AT_ONCE, maxBatch: GAMES_BATCH },
    );
  }
}
