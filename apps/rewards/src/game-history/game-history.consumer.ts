import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Consumers, Streams } from '@oasis198/contracts';
import { CONFIG, JetStreamService } from '@oasis198/service-kit';
import type { RewardsConfig } from '../config';
import { GameHistoryService } from './game-history.service';

/**
 * The history's own durable consumer of the GAMES stream (game.finished, in batches), apart
 * from the one that pays games, so neither waits for the other's retries.
 */
@Injectable()
export class GameHistoryConsumer implements OnApplicationBootstrap {
  private started = false;

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly history: GameHistoryService,
    @Inject(CONFIG)
    private readonly config: Pick<RewardsConfig, 'GAME_EVENTS_CONCURRENCY' | 'GAME_EVENTS_BATCH'>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.jetstream.ensureStreams([Streams.games]);
    await this.jetstream.consumeBatches(
      Consumers.rewardsHistory,
      (batch) => this.history.onGameEvents(batch.map(({ event }) => event)),
      { concurrency: this.config.GAME_EVENTS_CONCURRENCY, maxBatch: this.config.GAME_EVENTS_BATCH },
    );
  }
}
