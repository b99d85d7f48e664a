import { AppError, REQUEST_ID_HEADER, type EventEnvelope } from '@oasis198/contracts';
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from 'nats';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import { runWithRequestId } from '../request-context';
import { codec } from './publishing';
import { type ConsumerSpec, ensureDurable, PULL_EXPIRES_MS } from './stream-setup';

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

/** Applies a batch of events: all of them, or it throws (see EventConsumers.run()). */
export type BatchHandler = (batch: readonly DeliveredEvent[]) => Promise<void>;

/** The delays before a failed message's next delivery, by attempt (the last one repeats). */
export const RETRY_BACKOFF_MS: readonly number[] = [500, 2000, 10_000, 30_000];

/** The delay before delivery number `attempt` + 1 of a message that failed `attempt` times. */
export const retryDelayMs = (attempt: number, backoff: readonly number[] = RETRY_BACKOFF_MS): number =>
  backoff[Math.min(Math.max(attempt, 1) - 1, backoff.length - 1)] ?? 1000;

/**
 * Takes each message of a consume() in turn until `stopping()`. The messages the iterator yields
 * after that were already in this replica's hands (ConsumerMessages.stop() unsubscribes, then
 * lets the buffer out): each is given back at once, so another replica takes it now and not after
 * the ack wait, and a rollout delays nothing by it.
 */
export async function takeUntilStopped(
  messages: ConsumerMessages,
  stopping: () => boolean,
  take: (msg: JsMsg) => Promise<void>,
): Promise<void> {
  for await (const msg of messages) {
    if (stopping()) msg.nak();
    else await take(msg);
  }
}

/**
 * Creates the durable consumer of `spec` as EventConsumers runs it, when it is missing. The
 * publisher of an interest stream calls it for each of its readers before it publishes, so that no
 * event finds the stream without the consumer that would take it. Its settings come from the
 * spec (consumerSettings), so whichever service creates it, the consumer is the same.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  spec: ConsumerSpec,
  logger: Pick<Logger, 'info'>,
): Promise<void> {
  const created = await ensureDurable(jsm, spec);
  if (created) logger.info({ consumer: spec.durable }, 'created durable consumer');
}

/**
 * The service's durable consumers with explicit acks: a batch applied acks its events; when it
 * throws, each event is applied again alone, so only the ones that fail are terminated (an
 * AppError of code VALIDATION: it can never succeed) or retried after a backoff.
 */
export class EventConsumers {
  private readonly running = new Set<ConsumerMessages>();
  private readonly loops = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  /**
   * Creates the durable consumer if missing and processes its messages: up to `maxBatch` events
   * at once, as they arrived while earlier batches were in hand, and at most `concurrency`
   * batches at once. The handler must be idempotent, as every consumer here is.
   */
  async run(
    js: JetStreamClient,
    jsm: JetStreamManager,
    spec: ConsumerSpec,
    handler: BatchHandler,
    options: ConsumeBatchOptions = {},
  ): Promise<void> {
    const backoff = options.backoffMs ?? RETRY_BACKOFF_MS;
    const concurrency = options.concurrency ?? 1;
    const maxBatch = options.maxBatch ?? 1;
    await ensureConsumer(jsm, spec, this.logger);
    const consumer = await js.consumers.get(spec.stream, spec.durable);
    const messages = await consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS });
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
      await takeUntilStopped(
        messages,
        () => this.stopping,
        async (msg) => {
          waiting.push(msg);
          startBatches();
          while (waiting.length >= maxBatch && handling.size >= concurrency) await Promise.race(handling);
        },
      );
      for (const msg of waiting.splice(0)) msg.nak();
      await Promise.all(handling);
    })().catch((error) => this.logger.error({ err: error, consumer: spec.durable }, 'consumer stopped'));
    this.loops.add(loop);
  }

  /** Stops taking messages: those being handled finish and are acked, the rest are given back. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const messages of this.running) messages.stop();
    await Promise.allSettled([...this.loops]);
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
}
