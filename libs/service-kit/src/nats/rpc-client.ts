import { ClientNats, NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import {
  AppError,
  COMMON_MESSAGES,
  isErrorEnvelope,
  REQUEST_DEADLINE_HEADER,
  REQUEST_ID_HEADER,
} from '@oasis198/contracts';
import type { Logger } from 'pino';
import type { NatsEndpoint } from '../config';
import { RetryLaterError } from '../errors';
import { natsServers } from '../config';
import { createLogger } from '../logger';
import { currentRequestId } from '../request-context';

const RECONNECT_POLL_MS = 50;

/** ClientNats's refusal while its connection is lost (a string: nothing was sent). */
const isConnectionLost = (error: unknown) =>
  typeof error === 'string' && error.startsWith('Error: Connection lost');

/**
 * Request/reply over NATS with @nestjs/microservices. Every call has a timeout, and carries the
 * request id and the time the caller stops waiting (the service drops the request after that:
 * RpcContextInterceptor). An error envelope from the service comes back as an AppError with its
 * code (and with its retryAfterS, as a RetryLaterError), and a service that does not answer in
 * time becomes UNAVAILABLE (HTTP 503).
 */
export class RpcClient {
  private readonly client: ClientNats;

  constructor(
    /** natsEndpoint(config): servers and credentials; or just the servers (tests, local stack). */
    endpoint: NatsEndpoint | string[],
    name: string,
    private readonly defaultTimeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.client = new ClientNats({
      ...(Array.isArray(endpoint) ? { servers: endpoint } : endpoint),
      name: `${name}-rpc`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // No stack trace captured up front for every request (see JetStreamService.connect).
      noAsyncTraces: true,
    });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  /**
   * A connected client that logs nothing, as the integration tests call services over NATS (the
   * gateway's way of calling them).
   */
  static async forTests(natsUrl: string, name: string, timeoutMs = 10_000): Promise<RpcClient> {
    const client = new RpcClient(natsServers(natsUrl), name, timeoutMs, createLogger(name, 'silent'));
    await client.connect();
    return client;
  }

  async request<T>(subject: string, payload: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    const h = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    h.set(REQUEST_DEADLINE_HEADER, String(Date.now() + timeoutMs));
    const record = new NatsRecordBuilder(payload).setHeaders(h).build();
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        try {
          const left = Math.max(1, deadline - Date.now());
          return await firstValueFrom(this.client.send<T>(subject, record).pipe(timeout(left)));
        } catch (error) {
          // Between a NATS node's loss and the reconnect to another one, the client refuses to
          // send at once: nothing left, so the request waits for the reconnect, as if in flight.
          if (!isConnectionLost(error) || deadline - Date.now() < RECONNECT_POLL_MS) throw error;
          await sleep(RECONNECT_POLL_MS);
        }
      }
    } catch (error) {
      // A 429 keeps its retryAfterS, so the gateway answers with Retry-After.
      if (isErrorEnvelope(error)) throw RetryLaterError.fromEnvelope(error);
      if (error instanceof TimeoutError) {
        this.logger.warn({ subject, timeoutMs }, 'NATS request timed out');
        throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
      }
      this.logger.error({ err: error, subject }, 'NATS request failed');
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
