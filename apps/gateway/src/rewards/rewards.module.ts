import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { LeaderboardPushService } from './leaderboard-push.service';
import { RewardsController } from './rewards.controller';

@Module({
  // RoomsModule: its push service's stream places and SSE plumbing serve the leaderboard's stream too.
  imports: [RoomsModule],
  controllers: [RewardsController],
  providers: [LeaderboardPushService],
})
export class RewardsModule {}
