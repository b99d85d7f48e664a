import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceKitModule } from '@oasis198/service-kit';
import type { GatewayConfig } from './config';
import { GatewayCoreModule } from './gateway-core.module';
import { webAppModule } from './http/web-app';
import { RewardsModule } from './rewards/rewards.module';
import { RoomsModule } from './rooms/rooms.module';
import { TournamentsModule } from './tournaments/tournaments.module';
import { UsersModule } from './users/users.module';

/** Feature modules register here: users and rewards (accounts), rooms (play and live push), tournaments. */
const FEATURES: DynamicModule['imports'] = [UsersModule, RewardsModule, RoomsModule, TournamentsModule];

@Module({})
export class AppModule {
  static register(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({ name: 'gateway', config }),
        GatewayCoreModule,
        ...(FEATURES ?? []),
        // The local stack serves the built web app here; in Kubernetes its own image does.
        ...(config.WEB_DIST_DIR ? [webAppModule(config.WEB_DIST_DIR)] : []),
      ],
    };
  }
}
