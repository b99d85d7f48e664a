import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Consumers, Streams } from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger } from '@oasis198/service-kit';
import type { RewardsConfig } from '../config';
import { RewardsRepository } from '../rewards/rewards.repository';
import { PlayerEventsService } from './player-events.service';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The JetStream side of rewards: creates the USERS and GAMES streams and the durable consumers
 * when missing, hands each event to PlayerEventsService (acked once applied, retried when it
 * throws), game.finished in batches, and now and then forgets long-deleted players.
 */
@Injectable()
export class PlayerEventsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private started = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly events: PlayerEventsService,
    private readonly rewards: RewardsRepository,
    @Inject(CONFIG) private readonly config: RewardsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.jetstream.ensureStreams([Streams.users, Streams.games]);
    await this.jetstream.consume(Consumers.rewardsUsers, (event) => this.events.onUserEvent(event));
    await this.jetstream.consumeBatches(
      Consumers.rewardsGames,
      (batch) => this.events.onGameEvents(batch.map(({ event }) => event)),
      { concurrency: this.config.GAME_EVENTS_CONCURRENCY, maxBatch: this.config.GAME_EVENTS_BATCH },
    );
    this.timer = setInterval(() => void this.forgetOldDeletions(), DAY_MS / 4);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private async forgetOldDeletions(): Promise<void> {
    try {
      const before = new Date(Date.now() - this.config.DELETED_PLAYERS_KEPT_DAYS * DAY_MS);
      const removed = await this.rewards.forgetDeletedBefore(before);
      if (removed) this.logger.info({ removed }, 'forgot long-deleted players');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not forget long-deleted players');
    }
  }
}
