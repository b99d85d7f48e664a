import { Module } from '@nestjs/common';
import { RewardsModule } from '../rewards/rewards.module';
import { PlayerEventsConsumer } from './player-events.consumer';
import { PlayerEventsService } from './player-events.service';

@Module({
  imports: [RewardsModule],
  providers: [PlayerEventsService, PlayerEventsConsumer],
})
export class PlayerEventsModule {}
