import {
  type BeforeApplicationShutdown,
  Global,
  Inject,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  CONFIG,
  JetStreamService,
  Lifecycle,
  limitsBucketBounds,
  LOGGER,
  type Logger,
  natsEndpoint,
  RpcClient,
} from '@oasis198/service-kit';
import { AuthGuard } from './auth/auth.guard';
import { JwtStrategy } from './auth/jwt.strategy';
import { TokenRevocations } from './auth/token-revocations';
import { type GatewayConfig, rpcTimeoutMs } from './config';
import { GatewayLimits, type PerUserLimitName } from './http/rate-limit';

/**
 * The limits that only pace a user's writes: with the limits bucket full they count on each
 * replica, so moves go on; the others answer 503 then (docs/adr/0016).
 */
const PACING_LIMITS: readonly PerUserLimitName[] = [
  'roomCreates',
  'roomLeaves',
  'roomEdits',
  'rewardWrites',
  'logouts',
];

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
      useFactory: (config: GatewayConfig, logger: Logger) =>
        RpcClient.open(natsEndpoint(config), 'gateway', rpcTimeoutMs(config), logger),
    },
    {
      provide: GatewayLimits,
      inject: [CONFIG, JetStreamService, LOGGER],
      useFactory: (config: GatewayConfig, jetstream: JetStreamService, logger: Logger) =>
        GatewayLimits.open(jetstream.nc, config, {
          logger,
          bucket: limitsBucketBounds(config),
          localWhenFull: PACING_LIMITS,
        }),
    },
    TokenRevocations,
    JwtStrategy,
    AuthGuard,
  ],
  exports: [RpcClient, TokenRevocations, JwtStrategy, AuthGuard, GatewayLimits],
})
export class GatewayCoreModule implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly lifecycle: Lifecycle,
  ) {}

  /**
   * Before the HTTP server closes its idle connections: every answer says Connection: close
   * meanwhile (http/keep-alive.ts), so clients retire kept-alive sockets instead of sending on one
   * that closes under them.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.lifecycle.shuttingDown = true;
    await new Promise((resolve) => setTimeout(resolve, this.config.HTTP_DRAIN_MS));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rpc.close();
  }
}
