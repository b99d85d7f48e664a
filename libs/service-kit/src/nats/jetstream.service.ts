import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  type ConnectionOptions,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type PubAck,
} from 'nats';
import { randomUUID } from 'node:crypto';
import {
  AppError,
  REQUEST_ID_HEADER,
  type EventEnvelope,
  type EventPayloads,
  type EventType,
} from '@oasis198/contracts';
import type { Logger } from 'pino';
import { currentRequestId, runWithRequestId } from '../request-context';
import type { Metrics } from '../metrics';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubjects: readonly string[];
}

export interface ConsumeOptions {
  /** Seconds JetStream waits for an ack before redelivering. */
  ackWaitSeconds?: number;
  /** Retry delays after a failed handler, in ms; the last one repeats. */
  backoffMs?: readonly number[];
}

export type EventHandler = (event: EventEnvelope, msg: JsMsg) => Promise<void>;

const codec = JSONCodec<unknown>();
const DAY_NS = 24 * 60 * 60 * 1e9;

/**
 * One NATS connection per service for JetStream (durable events) and core broadcasts. It creates
 * the streams and durable consumers it needs when they are missing, publishes with msg-ids, and
 * runs consumers with explicit acks: a handler that throws gets the message again later.
 */
export class JetStreamService {
  private connection?: NatsConnection;
  private manager?: JetStreamManager;
  private client?: JetStreamClient;
  private readonly running = new Set<ConsumerMessages>();
  private readonly loops = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly options: { servers: string[]; name: string },
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  async connect(extra: Partial<ConnectionOptions> = {}): Promise<void> {
    if (this.connection) return;
    this.connection = await connect({
      servers: this.options.servers,
      name: `${this.options.name}-events`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      waitOnFirstConnect: true,
      // Every JetStream publish is a request; with async traces on, nats.js captures a stack
      // trace (new Error()) for each one up front, which showed in the rooms service's profile
      // (docs/benchmarks.md). Errors still carry their message and code.
      noAsyncTraces: true,
      ...extra,
    });
    const connection = this.connection;
    this.manager = await connection.jetstreamManager();
    this.client = connection.jetstream();
    void (async () => {
      for await (const status of connection.status()) {
        this.logger.info({ nats: status.type, data: String(status.data ?? '') }, 'NATS status');
      }
    })();
  }

  get nc(): NatsConnection {
    if (!this.connection) throw new Error('JetStreamService is not connected');
    return this.connection;
  }

  /** True while the connection is open (it may be reconnecting). */
  isConnected(): boolean {
    return !!this.connection && !this.connection.isClosed();
  }

  /** Round trip to the server, for readiness checks. */
  async ping(timeoutMs = 1000): Promise<void> {
    await withTimeout(this.nc.flush(), timeoutMs, 'NATS did not answer');
  }

  /** Creates each stream if missing; an existing stream keeps its configuration. */
  async ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    const jsm = this.jsm();
    for (const stream of streams) {
      try {
        await jsm.streams.info(stream.name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        try {
          await jsm.streams.add({
            name: stream.name,
            subjects: [...stream.subjects],
            retention: RetentionPolicy.Limits,
            storage: StorageType.File,
            max_age: 14 * DAY_NS,
            duplicate_window: 2 * 60 * 1e9,
          });
          this.logger.info({ stream: stream.name }, 'created stream');
        } catch (addError) {
          // Another replica may have created it at the same moment.
          if (!String((addError as Error).message).includes('already in use')) throw addError;
        }
      }
    }
  }

  /** Publishes an event with its id as the Nats-Msg-Id; a re-publish of the same id is stored once. */
  async publish<T extends EventType>(event: EventEnvelope<T>): Promise<PubAck> {
    const h = natsHeaders();
    const requestId = event.requestId ?? currentRequestId();
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    const ack = await this.js().publish(event.type, codec.encode(event), { msgID: event.id, headers: h });
    this.metrics?.eventsPublished.inc({ type: event.type, duplicate: String(ack.duplicate) });
    return ack;
  }

  /** Publishes on a core subject to every subscriber (no persistence). */
  broadcast(subject: string, data: unknown): void {
    this.nc.publish(subject, codec.encode(data));
  }

  /** Subscribes to a core subject; every replica receives every message. */
  subscribe(subject: string, handler: (data: unknown) => void): void {
    const sub = this.nc.subscribe(subject);
    void (async () => {
      for await (const msg of sub) {
        try {
          handler(codec.decode(msg.data));
        } catch (error) {
          this.logger.error({ err: error, subject }, 'broadcast handler failed');
        }
      }
    })();
  }

  /**
   * Creates the durable consumer if missing and processes its messages one at a time, in order.
   * Success acks; an AppError of code VALIDATION (a message that can never succeed) is
   * terminated and logged; any other error is retried after a backoff.
   */
  async consume(spec: ConsumerSpec, handler: EventHandler, options: ConsumeOptions = {}): Promise<void> {
    const jsm = this.jsm();
    const ackWaitSeconds = options.ackWaitSeconds ?? 30;
    const backoff = options.backoffMs ?? [500, 2000, 10_000, 30_000];
    const config = {
      durable_name: spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subjects: [...spec.filterSubjects],
      ack_wait: ackWaitSeconds * 1e9,
      max_ack_pending: 1000,
    };
    try {
      await jsm.consumers.info(spec.stream, spec.durable);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.consumers.add(spec.stream, config);
      this.logger.info({ consumer: spec.durable }, 'created durable consumer');
    }
    const consumer = await this.js().consumers.get(spec.stream, spec.durable);
    const messages = await consumer.consume({ max_messages: 256 });
    this.running.add(messages);
    const loop = (async () => {
      for await (const msg of messages) {
        if (this.stopping) break;
        await this.handle(spec.durable, msg, handler, backoff);
      }
    })().catch((error) => this.logger.error({ err: error, consumer: spec.durable }, 'consumer stopped'));
    this.loops.add(loop);
  }

  private async handle(
    durable: string,
    msg: JsMsg,
    handler: EventHandler,
    backoff: readonly number[],
  ): Promise<void> {
    let event: EventEnvelope;
    try {
      event = codec.decode(msg.data) as EventEnvelope;
    } catch {
      this.logger.error(
        { consumer: durable, subject: msg.subject, seq: msg.seq },
        'undecodable event terminated',
      );
      msg.term('undecodable');
      return;
    }
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || event.requestId || randomUUID();
    const stop = this.metrics?.eventDuration.startTimer({ consumer: durable, type: event.type });
    await runWithRequestId(requestId, async () => {
      try {
        await handler(event, msg);
        msg.ack();
        stop?.({ outcome: 'ok' });
      } catch (error) {
        const attempt = msg.info.redeliveryCount;
        if (error instanceof AppError && error.code === 'VALIDATION') {
          this.logger.error(
            { err: error, consumer: durable, eventId: event.id },
            'event can never be applied; terminated',
          );
          msg.term(error.message);
          stop?.({ outcome: 'terminated' });
          return;
        }
        const delay = backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 1000;
        this.logger.warn(
          { err: error, consumer: durable, eventId: event.id, attempt, retryInMs: delay },
          'event handler failed; will retry',
        );
        msg.nak(delay);
        stop?.({ outcome: 'retry' });
      }
    });
  }

  /** Stops consumers (the message in hand finishes and is acked), then drains the connection. */
  async close(): Promise<void> {
    this.stopping = true;
    for (const messages of this.running) messages.stop();
    await Promise.allSettled([...this.loops]);
    if (this.connection && !this.connection.isClosed()) await this.connection.drain().catch(() => undefined);
  }

  private jsm(): JetStreamManager {
    if (!this.manager) throw new Error('JetStreamService is not connected');
    return this.manager;
  }

  private js(): JetStreamClient {
    if (!this.client) throw new Error('JetStreamService is not connected');
    return this.client;
  }
}

/** Builds an event envelope for the outbox or a direct publish. */
export function makeEvent<T extends EventType>(
  type: T,
  id: string,
  data: EventPayloads[T],
  at = new Date(),
): EventEnvelope<T> {
  const requestId = currentRequestId();
  return { id, type, occurredAt: at.toISOString(), ...(requestId ? { requestId } : {}), data };
}

function isNotFound(error: unknown): boolean {
  const e = error as { code?: string; api_error?: { err_code?: number }; message?: string };
  return (
    e?.code === '404' ||
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    /not found/i.test(e?.message ?? '')
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
