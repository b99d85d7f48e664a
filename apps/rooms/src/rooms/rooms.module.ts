import { Module } from '@nestjs/common';
import { getConnectionToken, MongooseModule } from '@nestjs/mongoose';
import {
  CONFIG,
  DeadLetterPolicy,
  JetStreamService,
  LOGGER,
  type Logger,
  Metrics,
  ScheduleStore,
} from '@oasis198/service-kit';
import type { Connection } from 'mongoose';
import type { RoomsConfig } from '../config';
import { AccountDeletions } from './account-deletions';
import { LegacyOutboxes } from './legacy-outboxes';
import { PasscodeLimit } from './passcode-limit';
import {
  COUNTER_MODEL,
  CounterSchema,
  MEMBERSHIP_MODEL,
  MembershipSchema,
  ROOM_MODEL,
  RoomSchema,
} from './room.schema';
import { RoomLog } from './room-log';
import { RoomProjector } from './room-projector';
import { RoomStreams } from './room-streams';
import { ReadLine } from './read-line';
import { RoomsController } from './rooms.controller';
import { RoomsRepository } from './rooms.repository';
import { RoomsService } from './rooms.service';

/**
 * Rooms: the use cases (RoomsService) and, as providers with their own start-up and shutdown,
 * the plumbing they run on: the streams (RoomStreams), the room log and its projector, room
 * schedules in TIMERS, the passcode limit, the user.deleted consumer and the legacy outbox sweep.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ROOM_MODEL, schema: RoomSchema },
      { name: MEMBERSHIP_MODEL, schema: MembershipSchema },
      { name: COUNTER_MODEL, schema: CounterSchema },
    ]),
  ],
  controllers: [RoomsController],
  providers: [
    RoomStreams,
    RoomsRepository,
    {
      provide: RoomLog,
      inject: [JetStreamService],
      useFactory: async (jetstream: JetStreamService) =>
        new RoomLog(jetstream.nc.jetstream(), await jetstream.nc.jetstreamManager()),
    },
    {
      provide: ScheduleStore,
      inject: [JetStreamService, CONFIG],
      useFactory: async (jetstream: JetStreamService, config: RoomsConfig) =>
        new ScheduleStore(jetstream.nc, await jetstream.nc.jetstreamManager(), config.TIMER_SCHEDULE_LEAD_MS),
    },
    {
      provide: DeadLetterPolicy,
      inject: [getConnectionToken(), CONFIG, LOGGER, Metrics],
      useFactory: (connection: Connection, config: RoomsConfig, logger: Logger, metrics: Metrics) =>
        new DeadLetterPolicy(
          connection,
          { attempts: config.OUTBOX_DEAD_LETTER_ATTEMPTS, afterMs: config.OUTBOX_DEAD_LETTER_AFTER_MS },
          { service: 'rooms', logger, metrics },
        ),
    },
    {
      provide: RoomProjector,
      inject: [
        RoomStreams,
        RoomsRepository,
        JetStreamService,
        RoomLog,
        ScheduleStore,
        DeadLetterPolicy,
        CONFIG,
        LOGGER,
        Metrics,
      ],
      // Built once the streams are there: its onModuleInit starts consuming the room log.
      useFactory: async (
        streams: RoomStreams,
        repository: RoomsRepository,
        jetstream: JetStreamService,
        log: RoomLog,
        schedules: ScheduleStore,
        deadLetters: DeadLetterPolicy,
        config: RoomsConfig,
        logger: Logger,
        metrics: Metrics,
      ) => {
        await streams.ready();
        return new RoomProjector(
          repository,
          jetstream,
          log,
          schedules,
          logger,
          { closedNoticeMs: config.ROOM_CLOSED_NOTICE_S * 1000 },
          deadLetters,
          metrics,
        );
      },
    },
    PasscodeLimit,
    RoomsService,
    ReadLine,
    AccountDeletions,
    LegacyOutboxes,
  ],
})
export class RoomsModule {}
