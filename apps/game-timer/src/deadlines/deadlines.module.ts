import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  ROOM_DEADLINES_MODEL,
  RoomDeadlinesSchema,
  SHARD_LEASE_MODEL,
  ShardLeaseSchema,
  TIMER_REPLICA_MODEL,
  TimerReplicaSchema,
} from './deadline.schema';
import { DEADLINE_STORE } from './deadline-store';
import { DeadlinesRepository } from './deadlines.repository';
import { RoomEventsConsumer } from './room-events.consumer';
import { SchedulerService } from './scheduler.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ROOM_DEADLINES_MODEL, schema: RoomDeadlinesSchema },
      { name: SHARD_LEASE_MODEL, schema: ShardLeaseSchema },
      { name: TIMER_REPLICA_MODEL, schema: TimerReplicaSchema },
    ]),
  ],
  providers: [
    DeadlinesRepository,
    { provide: DEADLINE_STORE, useExisting: DeadlinesRepository },
    SchedulerService,
    RoomEventsConsumer,
  ],
})
export class DeadlinesModule {}
