import {
  AckPolicy,
  connect,
  DeliverPolicy,
  DiscardPolicy,
  headers as natsHeaders,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  type ConnectionOptions,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type Msg,
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
import type { NatsEndpoint } from '../config';
import { currentRequestId, runWithRequestId } from '../request-context';
import type { Metrics } from '../metrics';
import { StreamCapacity, type StreamCapacityState } from './stream-capacity';
// Every request of this connection (publish acks, KV writes) ends without a thrown-away error.
import './answered-requests';
import './coalesced-writes';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /**
   * Bytes the stream may hold. Streams discard NEW messages: a full stream refuses the next
   * event (the publisher answers 503) and never drops one that is stored. Unset: no limit.
   */
  maxBytes?: number;
  /** The largest message the stream accepts. Unset: NATS's max_payload. */
  maxMsgSize?: number;
  /** How long a message is kept at most, set when the stream is created; 0 keeps it. Unset: 14 days. */
  maxAgeMs?: number;
  /**
   * 'interest': a message is kept until every durable consumer whose filter takes it has acked
   * it, and one that no consumer takes is not stored at all; so its publisher creates those
   * consumers before it publishes (keepPublishedStream's readers). Unset: 'limits', every
   * message is kept until the limits drop it.
   */
  retention?: 'limits' | 'interest';
}

export interface CapacityWatchOptions {
  /** How often stream info is read (a refused publish marks the stream full at once). */
  everyMs: number;
  /** From this share of max_bytes on, the stream counts as full (room for the writes until the next look). */
  fullRatio: number;
}

/** What a service answers (503 UNAVAILABLE) while the stream its changes publish to is full. */
export const STREAM_FULL_MESSAGE =
  'Changes cannot be saved right now because event storage is full. Please try again later.';

export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubjects: readonly string[];
}

export interface ConsumeOptions {
  /** Retry delays after a failed handler, in ms; the last one repeats. */
  backoffMs?: readonly number[];
  /**
   * How many messages this replica handles at once (default 1: one at a time, in stream order).
   * More only for handlers that do not depend on order, as with two replicas on one consumer.
   */
  concurrency?: number;
}

export interface ConsumeBatchOptions extends ConsumeOptions {
  /**
   * Most events in one batch (default 1). A batch takes what arrived while the batches before it
   * were in hand, so it holds one event when the consumer keeps up and grows only under load.
   */
  maxBatch?: number;
}

export type EventHandler = (event: EventEnvelope, msg: JsMsg) => Promise<void>;

/**
 * An event as a batch handler gets it. Its `requestId` is always set: the message header's, else
 * the event's own, else a new one; the event's own log lines should carry it.
 */
export interface DeliveredEvent {
  event: EventEnvelope & { requestId: string };
  msg: JsMsg;
}

/** Applies a batch of events: all of them, or it throws (see consumeBatches()). */
export type BatchHandler = (batch: readonly DeliveredEvent[]) => Promise<void>;

const codec = JSONCodec<unknown>();
const textEncoder = new TextEncoder();

/** Every consume() consumer's settings: 30 s to ack before a redelivery, 1,000 messages in hand at most. */
const CONSUMER_SETTINGS: Partial<ConsumerConfig> = { ack_wait: 30 * 1e9, max_ack_pending: 1000 };
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
  private capacity?: StreamCapacity;
  private capacityTimer?: NodeJS.Timeout;
  private readonly watched = new Map<string, StreamSpec>();
  private readonly fullStreams = new Set<string>();

  constructor(
    /** Servers and credentials (natsEndpoint), and the service's name for the connection. */
    private readonly options: NatsEndpoint & { name: string },
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  async connect(extra: Partial<ConnectionOptions> = {}): Promise<void> {
    if (this.connection) return;
    const { name, ...endpoint } = this.options;
    this.connection = await connect({
      ...endpoint,
      name: `${name}-events`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      waitOnFirstConnect: true,
      // Every JetStream publish is a request; with async traces on, nats.js captures a stack
      // trace (new Error()) for each one up front, which showed in the rooms service's profile
      // (docs/adr/0046-library-patches-for-speed.md). Errors still carry their message and code.
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

  /**
   * Creates each stream if missing, with its retention, limits and discard policy NEW. With
   * updateLimits (the stream's publisher), an existing stream's retention, limits and discard
   * policy are brought up to date too, since deployments upgrade in place; lowering max_bytes
   * below what is stored drops nothing under discard NEW, it only refuses new messages until
   * there is room. Consumers leave an existing stream as it is, so services configured
   * differently do not undo each other.
   */
  async ensureStreams(
    streams: readonly StreamSpec[],
    options: { updateLimits?: boolean } = {},
  ): Promise<void> {
    const jsm = this.jsm();
    for (const stream of streams) {
      const limits = {
        retention: stream.retention === 'interest' ? RetentionPolicy.Interest : RetentionPolicy.Limits,
        max_bytes: stream.maxBytes ?? -1,
        max_msg_size: stream.maxMsgSize ?? -1,
        discard: DiscardPolicy.New,
      };
      let current;
      try {
        current = await jsm.streams.info(stream.name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        try {
          await jsm.streams.add({
            name: stream.name,
            subjects: [...stream.subjects],
            storage: StorageType.File,
            max_age: stream.maxAgeMs === undefined ? 14 * DAY_NS : stream.maxAgeMs * 1e6,
            duplicate_window: 2 * 60 * 1e9,
            ...limits,
          });
          this.logger.info({ stream: stream.name, ...limits }, 'created stream');
        } catch (addError) {
          // Another replica may have created it at the same moment.
          if (!String((addError as Error).message).includes('already in use')) {
            throw streamError(stream.name, addError);
          }
        }
        continue;
      }
      if (!options.updateLimits) continue;
      const config = current.config;
      if (
        config.retention === limits.retention &&
        config.max_bytes === limits.max_bytes &&
        config.max_msg_size === limits.max_msg_size &&
        config.discard === limits.discard
      ) {
        continue;
      }
      try {
        await jsm.streams.update(stream.name, { ...config, ...limits });
      } catch (error) {
        throw streamError(stream.name, error);
      }
      this.logger.info(
        {
          stream: stream.name,
          ...limits,
          was: {
            retention: config.retention,
            max_bytes: config.max_bytes,
            max_msg_size: config.max_msg_size,
            discard: config.discard,
          },
        },
        'updated stream configuration',
      );
    }
  }

  /**
   * Keeps a view of how full these streams are (assertCanPublish, the oasis_stream_* gauges):
   * stream info now and every `everyMs`, and a stream marked full at once when a publish to it
   * is refused for lack of space.
   */
  async watchCapacity(streams: readonly StreamSpec[], options: CapacityWatchOptions): Promise<void> {
    this.capacity ??= new StreamCapacity(options.fullRatio);
    for (const stream of streams) this.watched.set(stream.name, stream);
    await this.refreshCapacity();
    if (this.capacityTimer) return;
    this.capacityTimer = setInterval(() => void this.refreshCapacity(), options.everyMs);
    this.capacityTimer.unref();
  }

  /** Reads the watched streams' info now (watchCapacity does it every few seconds). */
  async refreshCapacity(): Promise<void> {
    const capacity = this.capacity;
    if (!capacity || !this.manager) return;
    for (const name of this.watched.keys()) {
      try {
        const { state, config } = await this.manager.streams.info(name);
        capacity.observe(name, { bytes: state.bytes, messages: state.messages, maxBytes: config.max_bytes });
      } catch (error) {
        // NATS away: the view stays as last seen; publishes that fail meanwhile are retried.
        this.logger.debug({ err: error, stream: name }, 'could not read stream info');
        continue;
      }
      this.report(name);
    }
  }

  /** Refuses (503 UNAVAILABLE) while the stream counts as full: a change that would publish to it must not be written. */
  assertCanPublish(stream: string): void {
    if (this.capacity?.isFull(stream)) throw new AppError('UNAVAILABLE', STREAM_FULL_MESSAGE);
  }

  /** How full a watched stream was at the last look; undefined before the first. */
  capacityOf(stream: string): StreamCapacityState | undefined {
    return this.capacity?.state(stream);
  }

  /** Updates the gauges, and logs when the stream turns full or has room again. */
  private report(stream: string): void {
    const state = this.capacity?.state(stream);
    if (!state) return;
    if (state.full !== this.fullStreams.has(stream)) {
      if (state.full) {
        this.fullStreams.add(stream);
        this.logger.error(
          { stream, bytes: state.bytes, maxBytes: state.maxBytes, messages: state.messages },
          `stream ${stream} is full: changes that publish to it answer 503 until messages age out or its max_bytes is raised`,
        );
      } else {
        this.fullStreams.delete(stream);
        this.logger.info(
          { stream, bytes: state.bytes, maxBytes: state.maxBytes },
          `stream ${stream} has room again`,
        );
      }
    }
    if (!this.metrics) return;
    this.metrics.streamBytesRatio.set({ stream }, state.bytesRatio);
    this.metrics.streamBytes.set({ stream }, state.bytes);
    this.metrics.streamMessages.set({ stream }, state.messages);
    this.metrics.streamFull.set({ stream }, state.full ? 1 : 0);
  }

  /** The watched stream that stores this subject (stream subjects are `prefix.>` or exact). */
  private streamOf(subject: string): string | undefined {
    for (const stream of this.watched.values()) {
      if (stream.subjects.some((pattern) => subjectMatches(pattern, subject))) return stream.name;
    }
    return undefined;
  }

  /** Publishes an event with its id as the Nats-Msg-Id; a re-publish of the same id is stored once. */
  async publish<T extends EventType>(event: EventEnvelope<T>): Promise<PubAck> {
    const h = natsHeaders();
    const requestId = event.requestId ?? currentRequestId();
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    let ack: PubAck;
    try {
      ack = await this.js().publish(event.type, codec.encode(event), { msgID: event.id, headers: h });
    } catch (error) {
      const stream = isOutOfSpace(error) ? this.streamOf(event.type) : undefined;
      if (stream && this.capacity) {
        this.capacity.markFull(stream);
        this.report(stream);
      }
      throw error;
    }
    this.metrics?.eventsPublished.inc({ type: event.type, duplicate: String(ack.duplicate) });
    return ack;
  }

  /** Publishes on a core subject to every subscriber (no persistence). */
  broadcast(subject: string, data: unknown): void {
    this.nc.publish(subject, codec.encode(data));
  }

  /**
   * Publishes text with headers on a core subject to every subscriber (no persistence): for a
   * receiver that routes by the headers and passes the body on as it is (room pushes).
   */
  broadcastText(subject: string, body: string, headers: Record<string, string>): void {
    const h = natsHeaders();
    for (const [name, value] of Object.entries(headers)) h.set(name, value);
    this.nc.publish(subject, textEncoder.encode(body), { headers: h });
  }

  /** Subscribes to a core subject; every replica receives every message. */
  subscribe(subject: string, handler: (data: unknown) => void): void {
    this.subscribeMessages(subject, (msg) => handler(codec.decode(msg.data)));
  }

  /** Subscribes to a core subject and hands each message over undecoded (its subject, headers, data). */
  subscribeMessages(subject: string, handler: (msg: Msg) => void): void {
    const sub = this.nc.subscribe(subject);
    void (async () => {
      for await (const msg of sub) {
        try {
          handler(msg);
        } catch (error) {
          this.logger.error({ err: error, subject }, 'broadcast handler failed');
        }
      }
    })();
  }

  /**
   * Creates the durable consumer if missing and processes its messages, one at a time and in
   * order unless `concurrency` says more. Success acks; an AppError of code VALIDATION (a message
   * that can never succeed) is terminated and logged; any other error is retried after a backoff.
   */
  consume(spec: ConsumerSpec, handler: EventHandler, options: ConsumeOptions = {}): Promise<void> {
    const each: BatchHandler = async (batch) => {
      for (const { event, msg } of batch) await handler(event, msg);
    };
    return this.consumeBatches(spec, each, { ...options, maxBatch: 1 });
  }

  /**
   * consume() for handlers that share work across events (one read or write for many): up to
   * `maxBatch` events at once, as they arrived while earlier batches were in hand, and at most
   * `concurrency` batches at once. A batch applied acks all its events. When it throws, each of
   * its events is applied again alone, so that only the ones that fail are terminated or retried
   * as consume() does; the handler must therefore be idempotent, as every consumer here is.
   */
  async consumeBatches(
    spec: ConsumerSpec,
    handler: BatchHandler,
    options: ConsumeBatchOptions = {},
  ): Promise<void> {
    const backoff = options.backoffMs ?? RETRY_BACKOFF_MS;
    const concurrency = options.concurrency ?? 1;
    const maxBatch = options.maxBatch ?? 1;
    await this.ensureConsumer(spec);
    const consumer = await this.js().consumers.get(spec.stream, spec.durable);
    const messages = await consumer.consume({ max_messages: 256 });
    this.running.add(messages);
    const loop = (async () => {
      const waiting: JsMsg[] = [];
      const handling = new Set<Promise<void>>();
      const startBatches = (): void => {
        while (!this.stopping && handling.size < concurrency && waiting.length > 0) {
          const batch = waiting.splice(0, maxBatch);
          const handled: Promise<void> = this.handleBatch(spec.durable, batch, handler, backoff).finally(
            () => {
              handling.delete(handled);
              startBatches();
            },
          );
          handling.add(handled);
        }
      };
      for await (const msg of messages) {
        if (this.stopping) break;
        waiting.push(msg);
        startBatches();
        while (waiting.length >= maxBatch && handling.size >= concurrency) await Promise.race(handling);
      }
      // Messages not started are not acked: they come again after ack_wait.
      await Promise.all(handling);
    })().catch((error) => this.logger.error({ err: error, consumer: spec.durable }, 'consumer stopped'));
    this.loops.add(loop);
  }

  /**
   * Creates the durable consumer of `spec` as consume() runs it, when it is missing. consume()
   * calls it; so does the publisher of an interest stream for each of its readers, before it
   * publishes, so that no event finds the stream without the consumer that would take it. One
   * set of settings (CONSUMER_SETTINGS), so whichever service creates it, the consumer is the same.
   */
  async ensureConsumer(spec: ConsumerSpec): Promise<void> {
    const created = await ensureDurable(this.jsm(), spec, CONSUMER_SETTINGS);
    if (created) this.logger.info({ consumer: spec.durable }, 'created durable consumer');
  }

  private async handleBatch(
    durable: string,
    msgs: readonly JsMsg[],
    handler: BatchHandler,
    backoff: readonly number[],
  ): Promise<void> {
    const batch = msgs.flatMap((msg) => this.delivered(durable, msg));
    if (batch.length > 1) {
      const stops = batch.map(({ event }) =>
        this.metrics?.eventDuration.startTimer({ consumer: durable, type: event.type }),
      );
      try {
        await runWithRequestId(undefined, () => handler(batch));
        for (const [i, { msg }] of batch.entries()) {
          msg.ack();
          stops[i]?.({ outcome: 'ok' });
        }
        return;
      } catch (error) {
        this.logger.warn(
          { err: error, consumer: durable, events: batch.length },
          'event batch failed; applying its events one at a time',
        );
      }
    }
    for (const one of batch) await this.handle(durable, one, handler, backoff);
  }

  /** The message's event and request id; an undecodable message is terminated (no event). */
  private delivered(durable: string, msg: JsMsg): DeliveredEvent[] {
    let event: EventEnvelope;
    try {
      event = codec.decode(msg.data) as EventEnvelope;
    } catch {
      this.logger.error(
        { consumer: durable, subject: msg.subject, seq: msg.seq },
        'undecodable event terminated',
      );
      msg.term('undecodable');
      return [];
    }
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || event.requestId || randomUUID();
    return [{ event: { ...event, requestId }, msg }];
  }

  /** Applies one event alone: acked once applied, terminated if it never can be, else retried. */
  private async handle(
    durable: string,
    one: DeliveredEvent,
    handler: BatchHandler,
    backoff: readonly number[],
  ): Promise<void> {
    const { event, msg } = one;
    const stop = this.metrics?.eventDuration.startTimer({ consumer: durable, type: event.type });
    await runWithRequestId(event.requestId, async () => {
      try {
        await handler([one]);
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
        const delay = retryDelayMs(attempt, backoff);
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
    clearInterval(this.capacityTimer);
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

/** The delays before a failed message's next delivery, by attempt (the last one repeats). */
export const RETRY_BACKOFF_MS: readonly number[] = [500, 2000, 10_000, 30_000];

/** The delay before delivery number `attempt` + 1 of a message that failed `attempt` times. */
export const retryDelayMs = (attempt: number, backoff: readonly number[] = RETRY_BACKOFF_MS): number =>
  backoff[Math.min(Math.max(attempt, 1) - 1, backoff.length - 1)] ?? 1000;

/**
 * Creates the durable consumer of `spec` when it is missing (explicit acks, from the stream's
 * start, `spec`'s subjects, plus `settings`); an existing one is left as it is. True when this
 * call created it.
 */
export async function ensureDurable(
  jsm: JetStreamManager,
  spec: ConsumerSpec,
  settings: Partial<ConsumerConfig>,
): Promise<boolean> {
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
    return false;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await jsm.consumers.add(spec.stream, {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subjects: [...spec.filterSubjects],
    ...settings,
  });
  return true;
}

/**
 * Deletes durable consumers that no service reads any more (contracts' RetiredConsumers), where
 * they still exist: on an interest stream, one left behind keeps every event it takes.
 */
export async function deleteRetiredConsumers(
  jsm: JetStreamManager,
  retired: readonly { stream: string; durable: string }[],
  logger: Pick<Logger, 'info'>,
): Promise<void> {
  for (const { stream, durable } of retired) {
    try {
      await jsm.consumers.delete(stream, durable);
      logger.info({ stream, consumer: durable }, 'deleted a retired durable consumer');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** JetStream's "not found": a stream (10059), a consumer (10014) or a message (10037). */
export function isNotFound(error: unknown): boolean {
  const e = error as { code?: string; api_error?: { err_code?: number }; message?: string } | null;
  return (
    e?.code === '404' ||
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    e?.api_error?.err_code === 10037 ||
    /not found/i.test(e?.message ?? '')
  );
}

/**
 * JetStream (or the client, for a message over max_payload) refused the message itself: a full
 * stream, a message too large, no stream for the subject. Publishing it again does not help until
 * something changes; unlike a timeout or a lost connection, which pass when NATS is back.
 */
export function isPublishRefusal(error: unknown): boolean {
  const e = error as { api_error?: unknown; code?: unknown } | null;
  return !!e && (e.api_error !== undefined || e.code === '503' || e.code === 'MAX_PAYLOAD_EXCEEDED');
}

/** The stream (or the server's store) has no room: JetStream's 'maximum bytes/messages exceeded', 'insufficient resources'. */
export function isOutOfSpace(error: unknown): boolean {
  const api = (error as { api_error?: { err_code?: number; description?: string } } | null)?.api_error;
  if (!api) return false;
  return (
    api.err_code === 10023 ||
    (api.err_code === 10077 && /maximum (bytes|messages)/i.test(api.description ?? ''))
  );
}

/** NATS cannot be reached right now (timeouts, a closed or lost connection): every publish would fail alike. */
export function isConnectionTrouble(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    [
      'TIMEOUT',
      'DISCONNECT',
      'CONNECTION_CLOSED',
      'CONNECTION_DRAINING',
      'CONNECTION_REFUSED',
      'CONNECTION_TIMEOUT',
    ].includes(code)
  );
}

function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern.endsWith('.>')) return subject.startsWith(pattern.slice(0, -1));
  return pattern === subject;
}

function streamError(stream: string, error: unknown): Error {
  return new Error(`Cannot configure stream ${stream}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
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
