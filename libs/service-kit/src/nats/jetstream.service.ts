import type { EventEnvelope, EventType } from '@oasis198/contracts';
import type { ConnectionOptions, JetStreamClient, JetStreamManager, Msg, NatsConnection, PubAck } from 'nats';
import type { Logger } from 'pino';
import type { NatsEndpoint } from '../config';
import type { Metrics } from '../metrics';
import { CapacityWatch, type CapacityWatchOptions } from './capacity-watch';
import { connectNats, withTimeout } from './connection';
import { setJetStreamRetryBudget, withJetStreamRetry } from './jetstream-retry';
import {
  type BatchHandler,
  type ConsumeBatchOptions,
  type ConsumeOptions,
  ensureConsumer,
  type EventHandler,
  EventConsumers,
} from './event-consumer';
import { codec, publishEvent, textMessage } from './publishing';
import type { StreamCapacityState } from './stream-capacity';
import { type ConsumerSpec, ensureStreams, type StreamSpec } from './stream-setup';

export * from './capacity-watch';
export * from './event-consumer';
export * from './jetstream-retry';
export * from './nats-errors';
export { makeEvent } from './publishing';
export * from './stream-setup';

/**
 * One NATS connection per service for JetStream (durable events) and core broadcasts, and the
 * one place its callers reach stream setup (stream-setup.ts), capacity (capacity-watch.ts),
 * publishing (publishing.ts) and consumers (event-consumer.ts) through.
 */
export class JetStreamService {
  private connection?: NatsConnection;
  private manager?: JetStreamManager;
  private client?: JetStreamClient;
  private readonly capacity: CapacityWatch;
  private readonly consumers: EventConsumers;

  constructor(
    /**
     * Servers and credentials (natsEndpoint), the service's name for the connection, and the
     * replicas of the streams and buckets it creates (NATS_STREAM_REPLICAS; unset: 1), and how
     * long its JetStream calls retry through a leader election (NATS_RETRY_BUDGET_MS, for the
     * whole process; unset: the default).
     */
    private readonly options: NatsEndpoint & {
      name: string;
      streamReplicas?: number;
      retryBudgetMs?: number;
    },
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {
    this.capacity = new CapacityWatch(logger, metrics);
    this.consumers = new EventConsumers(logger, metrics);
    if (options.retryBudgetMs !== undefined) setJetStreamRetryBudget(options.retryBudgetMs);
  }

  async connect(extra: Partial<ConnectionOptions> = {}): Promise<void> {
    if (this.connection) return;
    const { streamReplicas: _replicas, retryBudgetMs: _budget, ...endpoint } = this.options;
    this.connection = await connectNats(endpoint, this.logger, extra);
    this.manager = await this.connection.jetstreamManager();
    this.client = this.connection.jetstream();
  }

  get nc(): NatsConnection {
    if (!this.connection) throw new Error('JetStreamService is not connected');
    return this.connection;
  }

  /** How many copies JetStream keeps of each stream and KV bucket this service creates. */
  get streamReplicas(): number {
    return this.options.streamReplicas ?? 1;
  }

  /** True while the connection is open (it may be reconnecting). */
  isConnected(): boolean {
    return !!this.connection && !this.connection.isClosed();
  }

  /** Round trip to the server, for readiness checks. */
  async ping(timeoutMs = 1000): Promise<void> {
    await withTimeout(this.nc.flush(), timeoutMs, 'NATS did not answer');
  }

  /** See ensureStreams (stream-setup.ts). */
  ensureStreams(streams: readonly StreamSpec[], options: { updateLimits?: boolean } = {}): Promise<void> {
    return ensureStreams(this.jsm(), streams, this.logger, { replicas: this.streamReplicas, ...options });
  }

  /** Keeps a view of how full these streams are (capacity-watch.ts). */
  watchCapacity(streams: readonly StreamSpec[], options: CapacityWatchOptions): Promise<void> {
    return this.capacity.watch(this.jsm(), streams, options);
  }

  /** Reads the watched streams' info now (watchCapacity does it every few seconds). */
  refreshCapacity(): Promise<void> {
    return this.capacity.refresh();
  }

  /** Refuses (503 UNAVAILABLE) while the stream counts as full: a change that would publish to it must not be written. */
  assertCanPublish(stream: string): void {
    this.capacity.assertCanPublish(stream);
  }

  /** How full a watched stream was at the last look; undefined before the first. */
  capacityOf(stream: string): StreamCapacityState | undefined {
    return this.capacity.capacityOf(stream);
  }

  /**
   * Publishes an event with its id as the Nats-Msg-Id; a re-publish of the same id is stored once,
   * so it is retried through a leader election (withJetStreamRetry).
   */
  async publish<T extends EventType>(event: EventEnvelope<T>): Promise<PubAck> {
    let ack: PubAck;
    try {
      const js = this.js();
      ack = await withJetStreamRetry(() => publishEvent(js, event));
    } catch (error) {
      this.capacity.refused(event.type, error);
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
    const { data, headers: h } = textMessage(body, headers);
    this.nc.publish(subject, data, { headers: h });
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

  /** consume() for handlers that share work across events (one read or write for many): see EventConsumers.run. */
  consumeBatches(
    spec: ConsumerSpec,
    handler: BatchHandler,
    options: ConsumeBatchOptions = {},
  ): Promise<void> {
    return this.consumers.run(this.js(), this.jsm(), spec, handler, options);
  }

  /** Creates the durable consumer of `spec` as consume() runs it, when it is missing (see ensureConsumer). */
  ensureConsumer(spec: ConsumerSpec): Promise<void> {
    return ensureConsumer(this.jsm(), spec, this.logger);
  }

  /** Stops consumers (the message in hand finishes and is acked), then drains the connection. */
  async close(): Promise<void> {
    this.capacity.stop();
    await this.consumers.stop();
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
