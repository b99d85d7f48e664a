import 'reflect-metadata';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomStrategy } from '@nestjs/microservices';
import type { NatsConnection } from 'nats';
import type { z } from 'zod';
import { type BaseConfig, ConfigError, loadConfig, natsEndpoint } from './config';
import { createLogger, LOGGER, type Logger, NestJsonLogger } from './logger';
import { RpcServer } from './nats/rpc-server';

export interface ServiceDefinition<C extends BaseConfig> {
  name: string;
  configSchema: z.ZodType<C>;
  /** Builds the root module from the validated config (it should import ServiceKitModule.forRoot). */
  module: (config: C) => DynamicModule | Type<unknown>;
  /** Queue group for the NATS request/reply handlers; omit for an HTTP-only app. */
  queue?: string;
  /** Adjusts the app before it listens (the gateway adds its HTTP set-up here). */
  configure?: (app: INestApplication, config: C) => void | Promise<void>;
}

/** Creates the service (connected to NATS, not yet listening on HTTP). Tests use it in-process. */
export async function createService<C extends BaseConfig>(
  definition: ServiceDefinition<C>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ app: INestApplication; config: C }> {
  const config = loadConfig(definition.configSchema, env);
  const logger = createLogger(definition.name, config.LOG_LEVEL);
  const app = await NestFactory.create(definition.module(config), {
    logger: new NestJsonLogger(logger),
    bufferLogs: false,
    abortOnError: false,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await definition.configure?.(app, config);
  if (definition.queue) {
    // On shutdown the replica stops taking requests and answers those in hand (RpcServer).
    app.connectMicroservice<CustomStrategy>(
      {
        strategy: new RpcServer(
          {
            ...natsEndpoint(config),
            queue: definition.queue,
            name: `${definition.name}-rpc`,
            maxReconnectAttempts: -1,
            reconnectTimeWait: 1000,
            // No stack trace captured up front for every subscription and reply (see JetStreamService.connect).
            noAsyncTraces: true,
          },
          config.SHUTDOWN_GRACE_MS,
        ),
      },
      { inheritAppConfig: true },
    );
    // Every part sets itself up (streams, projector, stores) before the first request: joining
    // the queue group makes a new replica take requests at once, readiness probe or not.
    await app.init();
    await app.startAllMicroservices();
    // The subscriptions are only sent, not yet registered: a flush round trip makes the server
    // hold them, so a request sent once this returns finds a responder (no 503 right after a start).
    for (const microservice of app.getMicroservices()) {
      await microservice.unwrap<NatsConnection>().flush();
    }
  }
  return { app, config };
}

/** The entry point of a service process: start, listen, and exit with a clear message on bad config. */
export async function runService<C extends BaseConfig>(
  definition: ServiceDefinition<C>,
): Promise<INestApplication> {
  try {
    const { app, config } = await createService(definition);
    await app.listen(config.HTTP_PORT, '0.0.0.0');
    app
      .get<Logger>(LOGGER)
      .info({ port: config.HTTP_PORT, queue: definition.queue }, `${definition.name} started`);
    return app;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${definition.name}: ${error.message}`);
    } else {
      console.error(`${definition.name}: failed to start:`, error);
    }
    process.exit(1);
  }
}
