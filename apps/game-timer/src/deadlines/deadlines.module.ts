import { Module } from '@nestjs/common';
import { CONFIG, ensureTimerStream, JetStreamService, ScheduleStore } from '@oasis198/service-kit';
import type { GameTimerConfig } from '../config';
import { FiredDeadlinesConsumer } from './fired-deadlines.consumer';

@Module({
  providers: [
    {
      provide: ScheduleStore,
      inject: [JetStreamService, CONFIG],
      // The TIMERS stream exists before the consumer reads it (rooms keeps its limits).
      useFactory: async (jetstream: JetStreamService, config: GameTimerConfig) => {
        const jsm = await jetstream.nc.jetstreamManager();
        await ensureTimerStream(jsm, undefined, jetstream.streamReplicas);
        return new ScheduleStore(jetstream.nc, jsm, config.TIMER_SCHEDULE_LEAD_MS);
      },
    },
    FiredDeadlinesConsumer,
  ],
})
export class DeadlinesModule {}
