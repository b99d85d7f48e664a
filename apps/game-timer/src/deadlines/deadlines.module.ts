import { Module } from '@nestjs/common';
import { CONFIG, JetStreamService } from '@oasis198/service-kit';
import type { GameTimerConfig } from '../config';
import { FiredDeadlinesConsumer } from './fired-deadlines.consumer';
import { RoomEventsConsumer } from './room-events.consumer';
import { ensureTimerStream, ScheduleStore } from './schedule-store';

@Module({
  providers: [
    {
      provide: ScheduleStore,
      inject: [JetStreamService, CONFIG],
      // The TIMERS stream exists before either consumer starts writing to it or reading it.
      useFactory: async (jetstream: JetStreamService, config: GameTimerConfig) => {
        const jsm = await jetstream.nc.jetstreamManager();
        await ensureTimerStream(jsm, config.TIMERS_STREAM_MAX_BYTES);
        return new ScheduleStore(jetstream.nc, jsm, config.TIMER_SCHEDULE_LEAD_MS);
      },
    },
    FiredDeadlinesConsumer,
    RoomEventsConsumer,
  ],
})
export class DeadlinesModule {}
