import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  AppError,
  Consumers,
  type EventEnvelope,
  type EventPayloads,
  EventTypes,
  parseEvent,
  roomDeletedSchema,
  Streams,
  timedSnapshotSchema,
} from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger, Metrics } from '@oasis198/service-kit';
import { Counter } from 'prom-client';
import type { GameTimerConfig } from '../config';
import { scheduleOf, type RoomSchedule } from './schedule';
import { isRoomToken, ScheduleStore } from './schedule-store';

/**
 * Learns every room's deadlines from room.created / room.updated / room.deleted (one durable
 * consumer shared by the replicas, TIMER_ROOM_EVENTS_CONCURRENCY events at once per replica) and
 * keeps each room's schedule on the server: a snapshot
 * replaces the room's schedule if it is newer than what is there, so redeliveries and
 * out-of-order snapshots are harmless; a deleted room, or one left with no deadline, has its
 * schedule cancelled. One publish per event, and no database.
 */
@Injectable()
export class RoomEventsConsumer implements OnApplicationBootstrap {
  private readonly writes: Counter<'outcome'>;

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly store: ScheduleStore,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
    @Inject(CONFIG) private readonly config: Pick<GameTimerConfig, 'TIMER_ROOM_EVENTS_CONCURRENCY'>,
  ) {
    this.writes = new Counter({
      name: 'oasis_timer_schedule_writes_total',
      help: 'Room events turned into schedules, by outcome (scheduled, cancelled, older: a newer one was there).',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.jetstream.ensureStreams([Streams.games]);
    await this.jetstream.consume(Consumers.timerRooms, (event) => this.handle(event), {
      concurrency: this.config.TIMER_ROOM_EVENTS_CONCURRENCY,
    });
  }

  async handle(event: EventEnvelope): Promise<void> {
    switch (event.type) {
      case EventTypes.roomCreated:
      case EventTypes.roomUpdated: {
        // The fields the deadlines derive from are checked; a snapshot without them is terminated.
        parseEvent(timedSnapshotSchema, event.data, event.type);
        const { room } = event.data as EventPayloads[typeof EventTypes.roomUpdated];
        await this.write(scheduleOf(room));
        return;
      }
      case EventTypes.roomDeleted: {
        const { roomId, version } = parseEvent(roomDeletedSchema, event.data, event.type);
        await this.write({ roomId, version, deadlines: [] });
        return;
      }
      default:
        this.logger.debug({ type: event.type }, 'ignored event');
    }
  }

  private async write(schedule: RoomSchedule): Promise<void> {
    // A room id is one subject token (rooms makes them hex); anything else can never be scheduled.
    if (!isRoomToken(schedule.roomId)) {
      throw new AppError('VALIDATION', `room id ${JSON.stringify(schedule.roomId)} cannot name a schedule`);
    }
    this.writes.inc({ outcome: await this.store.write(schedule) });
  }
}
