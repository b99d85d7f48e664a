import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceKitModule } from '@oasis198/service-kit';
import { ArenaModule } from './arena/arena.module';
import type { TournamentsConfig } from './config';

@Module({})
export class AppModule {
  static register(config: TournamentsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ServiceKitModule.forRoot({ name: 'tournaments', config }), ArenaModule],
    };
  }
}
