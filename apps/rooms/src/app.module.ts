import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceKitModule } from '@oasis198/service-kit';
import type { RoomsConfig } from './config';
import { RoomsModule } from './rooms/rooms.module';

@Module({})
export class AppModule {
  static register(config: RoomsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ServiceKitModule.forRoot({ name: 'rooms', config }), RoomsModule],
    };
  }
}
