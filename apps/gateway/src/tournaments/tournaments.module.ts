import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { ArenaPushService } from './arena-push.service';
import { TournamentsController } from './tournaments.controller';

@Module({
  // RoomsModule: its push service's stream places and SSE plumbing serve the event pages too.
  imports: [RoomsModule],
  controllers: [TournamentsController],
  providers: [ArenaPushService],
})
export class TournamentsModule {}
