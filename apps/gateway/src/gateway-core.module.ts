import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONFIG,
  JetStreamService,
  LOGGER,
  type Logger,
  natsEndpoint,
  RpcClient,
} from '@oasis198/service-kit';
import { AuthGuard } from './auth/auth.guard';
import { JwtStrategy } from './auth/jwt.strategy';
import { TokenRevocations } from './auth/token-revocations';
import type { GatewayConfig } from './config';
import { GatewayLimits } from './http/rate-limit';

/**
 * The gateway's connection to the services (request/reply over NATS), its token check (local,
 * through passport-jwt, against the revocations auth writes to a NATS KV bucket), and its counting
 * limits (in a NATS KV bucket that every replica shares).
 */
@Global()
@Module({
  providers: [
    {
      provide: RpcClient,
      inject: [CONFIG, LOGGER],
      useFactory: async (config: GatewayConfig, logger: Logger) => {
        const client = new RpcClient(natsEndpoint(config), 'gateway', config.RPC_TIMEOUT_MS, logger);
        await client.connect();
        return client;
      },
    },
    {
      provide: GatewayLimits,
      inject: [CONFIG, JetStreamService, LOGGER],
      useFactory: (config: GatewayConfig, jetstream: JetStreamService, logger: Logger) =>
        GatewayLimits.open(jetstream.nc, config, { logger }),
    },
    TokenRevocations,
    JwtStrategy,
    AuthGuard,
  ],
  exports: [RpcClient, TokenRevocations, JwtStrategy, AuthGuard, GatewayLimits],
})
export class GatewayCoreModule implements OnApplicationShutdown {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.rpc.close();
  }
}
