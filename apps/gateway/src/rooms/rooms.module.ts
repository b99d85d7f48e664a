import { Module } from '@nestjs/common';
import { RoomPushService } from './room-push.service';
import { RoomsController } from './rooms.controller';

@Module({
  controllers: [RoomsController],
  providers: [RoomPushService],
})
export class RoomsModule {}
