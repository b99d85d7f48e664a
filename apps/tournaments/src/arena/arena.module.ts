import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, LOGGER, type Logger, natsEndpoint, RpcClient } from '@oasis198/service-kit';
import type { TournamentsConfig } from '../config';
import { ArenaController } from './arena.controller';
import { ArenaRepository } from './arena.repository';
import { ArenaRunner } from './arena.runner';
import { ArenaService } from './arena.service';
import { GamesConsumer } from './games.consumer';

@Module({
  controllers: [ArenaController],
  providers: [
    {
      // Requests to rooms and rewards, shared by the runner and the event views.
      provide: RpcClient,
      inject: [CONFIG, LOGGER],
      useFactory: (config: TournamentsConfig, logger: Logger) =>
        RpcClient.open(natsEndpoint(config), 'tournaments', config.RPC_TIMEOUT_MS, logger),
    },
    ArenaRepository,
    ArenaService,
    ArenaRunner,
    GamesConsumer,
  ],
})
export class ArenaModule implements OnApplicationShutdown {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  /** Nest calls a module's own hook after its providers': the runner's openings have ended. */
  async onApplicationShutdown(): Promise<void> {
    await this.rpc.close();
  }
}
