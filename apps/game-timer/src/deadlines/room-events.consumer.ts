import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  Consumers,
  type EventEnvelope,
  type EventPayloads,
  EventTypes,
  type RoomView,
  Streams,
} from '@oasis198/contracts';
import { JetStreamService, LOGGER, type Logger } from '@oasis198/service-kit';
import { DEADLINE_STORE, type DeadlineStore } from './deadline-store';
import { deriveDeadlines } from './derive';
import { SchedulerService } from './scheduler.service';

/**
 * Learns every room's deadlines from room.created / room.updated / room.deleted (one durable
 * consumer shared by the replicas). Each snapshot replaces the room's deadlines if it is newer
 * than what is stored, so redeliveries and out-of-order snapshots are harmless.
 */
@Injectable()
export class RoomEventsConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(DEADLINE_STORE) private readonly store: DeadlineStore,
    private readonly scheduler: SchedulerService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jetstream.ensureStreams([Streams.games]);
    await this.jetstream.consume(Consumers.timerRooms, (event) => this.handle(event));
  }

  async handle(event: EventEnvelope): Promise<void> {
    switch (event.type) {
      case EventTypes.roomCreated:
      case EventTypes.roomUpdated: {
        const { room } = event.data as EventPayloads[typeof EventTypes.roomUpdated];
        await this.snapshot(room);
        return;
      }
      case EventTypes.roomDeleted: {
        const { roomId, version } = event.data as EventPayloads[typeof EventTypes.roomDeleted];
        if (await this.store.markGone(roomId, version))
          this.scheduler.snapshotStored(roomId, version, undefined);
        return;
      }
      default:
        this.logger.debug({ type: event.type }, 'ignored event');
    }
  }

  private async snapshot(room: RoomView): Promise<void> {
    const deadlines = deriveDeadlines(room);
    const applied = await this.store.applySnapshot(room._id, room.version, deadlines);
    if (applied) this.scheduler.snapshotStored(room._id, room.version, deadlines[0]?.dueAt);
  }
}
