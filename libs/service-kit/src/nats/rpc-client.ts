import { ClientNats, NatsRecordBuilder } from '@nestjs/microservices';
// Not exported from the package's index; ClientNats rejects with it when NATS says no responders.
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
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
/**
 * How long a request waits for a subject's responders to come back. When a NATS node crashes,
 * the replicas connected to it have no subscriptions until they reconnect to another node (well
 * under a second), and if every replica of a service was on it, NATS answers "no responders".
 */
const NO_RESPONDERS_WAIT_MS = 3000;

/** ClientNats's refusal while its connection is lost (a string: nothing was sent). */
const isConnectionLost = (error: unknown) =>
  typeof error === 'string' && error.startsWith('Error: Connection lost');

/** NATS's "no responders" as ClientNats reports it: nobody received the request. */
const isNoResponders = (error: unknown) => error instanceof EmptyResponseException;

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

  /** A client, connected: what a service's provider of it gives. */
  static async open(
    endpoint: NatsEndpoint | string[],
    name: string,
    defaultTimeoutMs: number,
    logger: Logger,
  ): Promise<RpcClient> {
    const client = new RpcClient(endpoint, name, defaultTimeoutMs, logger);
    await client.connect();
    return client;
  }

  /**
   * A connected client that logs nothing, as the integration tests call services over NATS (the
   * gateway's way of calling them).
   */
  static forTests(natsUrl: string, name: string, timeoutMs = 10_000): Promise<RpcClient> {
    return RpcClient.open(natsServers(natsUrl), name, timeoutMs, createLogger(name, 'silent'));
  }

  async request<T>(subject: string, payload: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    const h = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    h.set(REQUEST_DEADLINE_HEADER, String(Date.now() + timeoutMs));
    const record = new NatsRecordBuilder(payload).setHeaders(h).build();
    const deadline = Date.now() + timeoutMs;
    const respondersDeadline = Math.min(deadline, Date.now() + NO_RESPONDERS_WAIT_MS);
    try {
      for (;;) {
        try {
          const left = Math.max(1, deadline - Date.now());
          return await firstValueFrom(this.client.send<T>(subject, record).pipe(timeout(left)));
        } catch (error) {
          // Both refusals mean nothing was delivered, so sending again cannot do a change twice:
          // the client's own node is gone (it refuses until it reconnects), or the responders' is.
          const until = isConnectionLost(error) ? deadline : isNoResponders(error) ? respondersDeadline : 0;
          if (until - Date.now() < RECONNECT_POLL_MS) throw error;
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
