import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceKitModule } from '@oasis198/service-kit';
import type { RewardsConfig } from './config';
import { GameHistoryModule } from './game-history/game-history.module';
import { PlayerEventsModule } from './player-events/player-events.module';
import { RewardsModule } from './rewards/rewards.module';

@Module({})
export class AppModule {
  static register(config: RewardsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({ name: 'rewards', config }),
        RewardsModule,
        GameHistoryModule,
        PlayerEventsModule,
      ],
    };
  }
}
