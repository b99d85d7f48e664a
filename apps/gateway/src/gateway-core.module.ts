import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, LOGGER, type Logger, natsServers, RpcClient } from '@oasis198/service-kit';
import { AuthGuard } from './auth/auth.guard';
import { TokenVerifier } from './auth/token-verifier';
import type { GatewayConfig } from './config';

/** The gateway's connection to the services (request/reply over NATS) and its token check. */
@Global()
@Module({
  providers: [
    {
      provide: RpcClient,
      inject: [CONFIG, LOGGER],
      useFactory: async (config: GatewayConfig, logger: Logger) => {
        const client = new RpcClient(natsServers(config.NATS_URL), 'gateway', config.RPC_TIMEOUT_MS, logger);
        await client.connect();
        return client;
      },
    },
    TokenVerifier,
    AuthGuard,
  ],
  exports: [RpcClient, TokenVerifier, AuthGuard],
})
export class GatewayCoreModule implements OnApplicationShutdown {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.rpc.close();
  }
}
