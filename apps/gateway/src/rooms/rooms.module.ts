import { Module } from '@nestjs/common';
import { RoomPushService } from './room-push.service';
import { RoomsController } from './rooms.controller';

@Module({
  controllers: [RoomsController],
  providers: [RoomPushService],
  // The leaderboard's stream (rewards) shares its stream places and SSE plumbing.
  exports: [RoomPushService],
})
export class RoomsModule {}
