import { Module } from '@nestjs/common';
import { GameHistoryModule } from '../game-history/game-history.module';
import { RewardsModule } from '../rewards/rewards.module';
import { LeaderboardNotifier, NatsLeaderboardNotifier } from './leaderboard-notifier';
import { PlayerEventsConsumer } from './player-events.consumer';
import { PlayerEventsService } from './player-events.service';

@Module({
  imports: [RewardsModule, GameHistoryModule],
  providers: [
    PlayerEventsService,
    PlayerEventsConsumer,
    { provide: LeaderboardNotifier, useClass: NatsLeaderboardNotifier },
  ],
})
export class PlayerEventsModule {}
