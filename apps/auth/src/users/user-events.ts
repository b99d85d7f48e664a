import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import { Streams } from '@oasis198/contracts';
import {
  CONFIG,
  JetStreamService,
  keepPublishedStream,
  LOGGER,
  type Logger,
  Metrics,
  OutboxRelay,
  publisherRelayOptions,
} from '@oasis198/service-kit';
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
  ) =>
    new OutboxRelay(model, jetstream, logger, {
      metrics,
      sweepEveryMs: config.OUTBOX_SWEEP_MS,
      ...publisherRelayOptions('auth', Streams.users.name, config),
    }),
};

/**
 * Keeps the USERS stream (auth publishes to it) with its configured limits, watches how full it
 * is, and runs the relay's sweep while the service runs.
 */
@Injectable()
export class UserEventsLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private started = false;

  constructor(
    @Inject(USER_EVENTS) private readonly relay: OutboxRelay<User>,
    private readonly jetstream: JetStreamService,
    @Inject(CONFIG) private readonly config: AuthConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const users = {
      ...Streams.users,
      maxBytes: this.config.USERS_STREAM_MAX_BYTES,
      maxMsgSize: this.config.USERS_STREAM_MAX_MSG_SIZE,
    };
    await keepPublishedStream(this.jetstream, users, this.config);
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.relay.stop();
  }
}
