import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Streams } from '@oasis198/contracts';
import {
  CONFIG,
  JetStreamService,
  LOGGER,
  type Logger,
  Metrics,
  type OutboxDocument,
  OutboxRelay,
  publisherRelayOptions,
} from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RoomsConfig } from '../config';
import { ROOM_MODEL } from './room.schema';
import { RoomStreams } from './room-streams';

/**
 * Rooms written before the room log kept their events in an outbox in the document until they
 * were published; a crash before that left some there. One sweep of the outbox relay at start-up
 * publishes them (msg-ids make a repeat harmless), so the upgrade loses none.
 */
@Injectable()
export class LegacyOutboxes implements OnModuleInit {
  constructor(
    @InjectModel(ROOM_MODEL) private readonly rooms: Model<OutboxDocument>,
    private readonly streams: RoomStreams,
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: RoomsConfig,
    private readonly metrics: Metrics,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.streams.ready();
    void this.sweep();
  }

  private async sweep(): Promise<void> {
    const relay = new OutboxRelay(this.rooms, this.jetstream, this.logger, {
      metrics: this.metrics,
      ...publisherRelayOptions('rooms', Streams.games.name, this.config),
    });
    await relay.sweep(0).catch((error) => this.logger.warn({ err: error }, 'legacy outbox sweep failed'));
  }
}
