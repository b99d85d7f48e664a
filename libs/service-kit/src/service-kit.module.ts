import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Global,
  Inject,
  Module,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { TerminusModule } from '@nestjs/terminus';
import mongoose from 'mongoose';
import type { Logger } from 'pino';
import { type BaseConfig, natsEndpoint } from './config';
import { AllErrorsFilter } from './errors';
import { HealthController } from './health';
import { Lifecycle } from './lifecycle';
import { createLogger, LOGGER } from './logger';
import { Metrics, MetricsController } from './metrics';
import { JetStreamService } from './nats/jetstream.service';
import { RpcContextInterceptor } from './nats/rpc.interceptor';

export const CONFIG = Symbol('CONFIG');

export interface ServiceKitOptions {
  name: string;
  config: BaseConfig & { MONGO_URL?: string; MONGO_MAX_POOL_SIZE?: number };
}

/**
 * What every service shares: its validated config, JSON logger, Prometheus metrics, the
 * JetStream connection, MongoDB (when MONGO_URL is set), /health and /metrics, the error
 * envelope filter and the request-context interceptor. Import it once in the root module.
 */
@Global()
@Module({})
export class ServiceKitModule implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(JetStreamService) private readonly jetstream: JetStreamService,
    @Inject(Lifecycle) private readonly lifecycle: Lifecycle,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static forRoot({ name, config }: ServiceKitOptions): DynamicModule {
    const logger = createLogger(name, config.LOG_LEVEL);
    const metrics = new Metrics(name);
    const providers: Provider[] = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: Metrics, useValue: metrics },
      { provide: 'HAS_MONGO', useValue: !!config.MONGO_URL },
      Lifecycle,
      {
        provide: JetStreamService,
        useFactory: async () => {
          const service = new JetStreamService(
            {
              ...natsEndpoint(config),
              name,
              streamReplicas: config.NATS_STREAM_REPLICAS,
              retryBudgetMs: config.NATS_RETRY_BUDGET_MS,
            },
            logger,
            metrics,
          );
          await service.connect();
          return service;
        },
      },
      { provide: APP_FILTER, useValue: new AllErrorsFilter(logger) },
      { provide: APP_INTERCEPTOR, useValue: new RpcContextInterceptor(metrics) },
    ];
    // Mongoose keeps a formatted stack trace of every query it runs (for "Query was already
    // executed"); with source maps on, formatting it was 6.7 % of the rewards service's CPU at 300
    // games (docs/adr/0022-library-patches-for-speed.md). Query errors keep their own stacks.
    mongoose.set('skipOriginalStackTraces', true);
    return {
      module: ServiceKitModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        ...(config.MONGO_URL
          ? [
              MongooseModule.forRoot(config.MONGO_URL, {
                serverSelectionTimeoutMS: 5000,
                maxPoolSize: config.MONGO_MAX_POOL_SIZE ?? 100,
                retryAttempts: Number.MAX_SAFE_INTEGER,
                retryDelay: 2000,
                monitorCommands: true,
                onConnectionCreate: (connection) => metrics.watchDatabase(connection),
              }),
            ]
          : []),
      ],
      controllers: [HealthController, MetricsController],
      providers,
      exports: [
        CONFIG,
        LOGGER,
        Metrics,
        JetStreamService,
        Lifecycle,
        ...(config.MONGO_URL ? [MongooseModule] : []),
      ],
    };
  }

  beforeApplicationShutdown(signal?: string): void {
    this.lifecycle.shuttingDown = true;
    this.logger.info({ signal }, 'shutting down');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.jetstream.close();
    this.logger.info('stopped');
  }
}
