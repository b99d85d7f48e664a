import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import { Streams } from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger, Metrics, OutboxRelay } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { AuthConfig } from '../config';
import { User } from './user.schema';

/** The outbox relay of the users collection (publishes user.registered/renamed/deleted). */
export const USER_EVENTS = Symbol('USER_EVENTS');

export const userEventsProvider = {
  provide: USER_EVENTS,
  inject: [getModelToken(User.name), JetStreamService, LOGGER, Metrics, CONFIG],
  useFactory: (
    model: Model<User>,
    jetstream: JetStreamService,
    logger: Logger,
    metrics: Metrics,
    config: AuthConfig,
  ) => new OutboxRelay(model, jetstream, logger, { metrics, sweepEveryMs: config.OUTBOX_SWEEP_MS }),
};

/** Creates the USERS stream when missing and runs the relay's sweep while the service runs. */
@Injectable()
export class UserEventsLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private started = false;

  constructor(
    @Inject(USER_EVENTS) private readonly relay: OutboxRelay<User>,
    private readonly jetstream: JetStreamService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.jetstream.ensureStreams([Streams.users]);
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.relay.stop();
  }
}
