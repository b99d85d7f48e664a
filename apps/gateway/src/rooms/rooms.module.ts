import { Module } from '@nestjs/common';
import { RoomPushService } from './room-push.service';
import { RoomSocketService } from './room-socket.service';
import { RoomsController } from './rooms.controller';

@Module({
  controllers: [RoomsController],
  providers: [RoomPushService, RoomSocketService],
  // The leaderboard's stream (rewards) shares its stream places and SSE plumbing.
  exports: [RoomPushService],
})
export class RoomsModule {}
