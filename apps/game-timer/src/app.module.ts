import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceKitModule } from '@oasis198/service-kit';
import type { GameTimerConfig } from './config';
import { DeadlinesModule } from './deadlines/deadlines.module';

@Module({})
export class AppModule {
  static register(config: GameTimerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ServiceKitModule.forRoot({ name: 'game-timer', config }), DeadlinesModule],
    };
  }
}
