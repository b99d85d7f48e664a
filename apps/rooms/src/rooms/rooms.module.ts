import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  COUNTER_MODEL,
  CounterSchema,
  MEMBERSHIP_MODEL,
  MembershipSchema,
  ROOM_MODEL,
  RoomSchema,
} from './room.schema';
import { ReadLine } from './read-line';
import { RoomsController } from './rooms.controller';
import { RoomsRepository } from './rooms.repository';
import { RoomsService } from './rooms.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ROOM_MODEL, schema: RoomSchema },
      { name: MEMBERSHIP_MODEL, schema: MembershipSchema },
      { name: COUNTER_MODEL, schema: CounterSchema },
    ]),
  ],
  controllers: [RoomsController],
  providers: [RoomsRepository, RoomsService, ReadLine],
})
export class RoomsModule {}
