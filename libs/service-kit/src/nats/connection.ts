import { connect, type ConnectionOptions, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { NatsEndpoint } from '../config';

/** The service's NATS connection for JetStream and core broadcasts: reconnects for ever, logs its status changes. */
export async function connectNats(
  options: NatsEndpoint & { name: string },
  logger: Logger,
  extra: Partial<ConnectionOptions> = {},
): Promise<NatsConnection> {
  const { name, ...endpoint } = options;
  const connection = await connect({
    ...endpoint,
    name: `${name}-events`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    waitOnFirstConnect: true,
    // Every JetStream publish is a request; with async traces on, nats.js captures a stack
    // trace (new Error()) for each one up front, which showed in the rooms service's profile
    // (docs/adr/0022-library-patches-for-speed.md). Errors still carry their message and code.
    noAsyncTraces: true,
    ...extra,
  });
  void (async () => {
    for await (const status of connection.status()) {
      logger.info({ nats: status.type, data: String(status.data ?? '') }, 'NATS status');
    }
  })();
  return connection;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
