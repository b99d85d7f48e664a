import type { EventEnvelope } from '@oasis198/contracts';
import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import { z } from 'zod';
import { DEAD_LETTERS_COLLECTION, type DeadLetterRecord } from './dead-letters/dead-letters';
import { isDuplicateKeyError } from './mongo';
import {
  isConnectionTrouble,
  isPublishRefusal,
  type ConsumerSpec,
  type JetStreamService,
  type StreamSpec,
} from './nats/jetstream.service';
import type { Metrics } from './metrics';

/**
 * Transactional outbox in the document itself. MongoDB-compatible servers here have no
 * multi-document transactions, so a state change and the events it causes are written in ONE
 * atomic update: `$set: { ...changes, ...outboxFields(events) }`. After the write the events are
 * published to JetStream (msg-id = event id, so a repeat is de-duplicated) and removed from the
 * document. If the service dies in between, the relay's sweep publishes them later. Nothing is
 * lost, and consumers are idempotent for what is delivered twice.
 *
 * A document that is going away is first marked `tombstone: true` (with its last events) and is
 * deleted only once those events are out.
 *
 * Documents that use it carry `outbox` (a map from key to event; keys are event ids with the
 * characters MongoDB forbids in field names replaced), `outboxAt` (Date | null: set whenever
 * events are added), when being deleted, `tombstone`, and for events JetStream refused,
 * `outboxFailures` (by the same keys).
 *
 * An event JetStream keeps refusing (a full stream, a message too large, no stream for its
 * subject) must not hold up the others: after OUTBOX_DEAD_LETTER_ATTEMPTS refusals spread over at
 * least OUTBOX_DEAD_LETTER_AFTER_MS it moves to the service's `dead_letters` collection, to be
 * replayed (replay-dead-letters) once the cause is fixed. Timeouts and lost connections are not
 * refusals: while NATS is away, events wait in their outboxes however long it takes.
 *
 * Each event is stored as its JSON text, not as a sub-document: nothing queries inside an event,
 * and FerretDB's cost for every read and write of a document grows with the number of values in
 * it (a room's room.updated event carries the whole room). Events stored as
 * sub-documents (written before) are still read.
 */
export interface OutboxDocument {
  _id: unknown;
  outbox?: Record<string, string | EventEnvelope> | null;
  outboxAt?: Date | null;
  tombstone?: boolean;
  /** Refusals so far of events still in the outbox, by outbox key (written only on a refusal). */
  outboxFailures?: Record<string, OutboxFailure> | null;
}

/** How often and since when JetStream has refused one outbox event. */
export interface OutboxFailure {
  attempts: number;
  firstAt: Date;
  lastAt: Date;
  /** The last refusal's reason. */
  error: string;
}

const DEAD_LETTER_ATTEMPTS = 10;
const DEAD_LETTER_AFTER_MS = 60_000;
/** How often the sweep recounts the dead letters waiting (a replay runs in another process). */
const DEAD_LETTERS_COUNT_EVERY_MS = 60_000;

/**
 * Stores a dead letter in the service's `dead_letters` collection (its id is the event's, so a
 * repeat after a crash stores it once). The outbox relay and rooms' log projector both use it.
 */
export async function storeDeadLetter(
  db: { collection(name: string): { insertOne(doc: never): Promise<unknown> } },
  record: DeadLetterRecord,
): Promise<void> {
  try {
    await db.collection(DEAD_LETTERS_COLLECTION).insertOne(record as never);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/** A refusal's reason as JetStream gave it. */
export function describeError(error: unknown): string {
  const e = error as { api_error?: { description?: string }; message?: string } | null;
  return e?.api_error?.description ?? e?.message ?? String(error);
}

/**
 * Variables of services that publish events through an outbox (rooms, auth): when a refused event
 * becomes a dead letter, and how the publisher watches its stream's room (JetStreamService).
 */
export const publisherEnv = {
  /** Refusals by JetStream of one event before it becomes a dead letter... */
  OUTBOX_DEAD_LETTER_ATTEMPTS: z.coerce.number().int().min(1).default(DEAD_LETTER_ATTEMPTS),
  /** ...spread over at least this long (a full stream may be made room for meanwhile). */
  OUTBOX_DEAD_LETTER_AFTER_MS: z.coerce.number().int().min(0).default(DEAD_LETTER_AFTER_MS),
  /** How often the publisher reads its stream's info (how full it is, for the 503 check and the gauges). */
  STREAM_CHECK_MS: z.coerce.number().int().positive().default(5000),
  /** From this share of its max_bytes on, a stream counts as full and changes are refused with 503. */
  STREAM_FULL_RATIO: z.coerce.number().gt(0).max(1).default(0.95),
};

/** The variables publisherEnv adds to a service's config. */
export type PublisherConfig = { [K in keyof typeof publisherEnv]: z.infer<(typeof publisherEnv)[K]> };

/**
 * The relay options of the one service that publishes to `stream` (auth: USERS, rooms: GAMES):
 * its changes wait while that stream is full (assertCanPublish), and a refused event becomes a
 * dead letter as its publisherEnv variables say.
 */
export function publisherRelayOptions(
  service: string,
  stream: string,
  config: PublisherConfig,
): Pick<OutboxRelayOptions, 'service' | 'stream' | 'deadLetterAttempts' | 'deadLetterAfterMs'> {
  return {
    service,
    stream,
    deadLetterAttempts: config.OUTBOX_DEAD_LETTER_ATTEMPTS,
    deadLetterAfterMs: config.OUTBOX_DEAD_LETTER_AFTER_MS,
  };
}

/**
 * At start-up, by the one service that publishes to `stream`: creates it or brings its limits up
 * to date (only its publisher does, so services configured differently do not undo each other),
 * creates the durable consumers that read it (`readers`: an interest stream stores an event only
 * for the consumers that exist when it is published, and their services may start later), then
 * watches how full it is every STREAM_CHECK_MS, which assertCanPublish() goes by.
 */
export async function keepPublishedStream(
  jetstream: JetStreamService,
  stream: StreamSpec,
  config: PublisherConfig,
  readers: readonly ConsumerSpec[] = [],
): Promise<void> {
  await jetstream.ensureStreams([stream], { updateLimits: true });
  for (const reader of readers) await jetstream.ensureConsumer(reader);
  await jetstream.watchCapacity([stream], {
    everyMs: config.STREAM_CHECK_MS,
    fullRatio: config.STREAM_FULL_RATIO,
  });
}

export const outboxKey = (eventId: string): string => eventId.replace(/[.$]/g, '_');

/** An event as the outbox stores it. */
export const encodeOutboxEvent = (event: EventEnvelope): string => JSON.stringify(event);

const decodeOutboxEvent = (stored: string | EventEnvelope): EventEnvelope =>
  typeof stored === 'string' ? (JSON.parse(stored) as EventEnvelope) : stored;

/** The outbox of a new document holding these events. */
export function outboxOf(events: readonly EventEnvelope[]): Record<string, string> {
  return Object.fromEntries(events.map((event) => [outboxKey(event.id), encodeOutboxEvent(event)]));
}

/** The `$set` fields that add events to a document's outbox in the same update as the change. */
export function outboxFields(events: readonly EventEnvelope[], now = new Date()): Record<string, unknown> {
  const fields: Record<string, unknown> = { outboxAt: now };
  for (const event of events) fields[`outbox.${outboxKey(event.id)}`] = encodeOutboxEvent(event);
  return fields;
}

/** Events in the order they happened (their occurredAt, then their ids). */
export function pendingEvents(doc: Pick<OutboxDocument, 'outbox'>): EventEnvelope[] {
  return Object.values(doc.outbox ?? {})
    .map(decodeOutboxEvent)
    .sort(
      (a, b) =>
        a.occurredAt.localeCompare(b.occurredAt) || a.id.localeCompare(b.id, undefined, { numeric: true }),
    );
}

export interface OutboxRelayOptions {
  sweepEveryMs?: number;
  minAgeMs?: number;
  metrics?: Metrics;
  /**
   * Removes published events from the document this long after publishing them instead of at
   * once, so that a change of the same document meanwhile can remove them in its own update
   * (takePublished): one write fewer per change of a document that changes often (a room in
   * play). Keep it below minAgeMs, or the sweep publishes them again (harmless:
   * JetStream drops a repeated msg-id). 0 (the default) removes them at once.
   */
  clearAfterMs?: number;
  /** The service's name, written into its dead letters. */
  service?: string;
  /** The stream the events go to: assertCanPublish() refuses changes while it is full. */
  stream?: string;
  /** Refusals of one event before it becomes a dead letter (default 10)... */
  deadLetterAttempts?: number;
  /** ...spread over at least this long (default 60 s). */
  deadLetterAfterMs?: number;
}

interface PendingClear {
  id: unknown;
  outboxAt: Date | null;
  keys: string[];
  timer: NodeJS.Timeout;
}

export class OutboxRelay<T extends OutboxDocument = OutboxDocument> {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = false;
  /** Published events not yet removed from their documents (clearAfterMs), by document id. */
  private readonly clears = new Map<string, PendingClear>();
  private readonly clearing = new Set<Promise<void>>();
  private deadLettersCountedAt = 0;

  constructor(
    private readonly model: Model<T>,
    private readonly jetstream: JetStreamService,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions = {},
  ) {}

  /**
   * Publishes every event in the document's outbox (as just written) and removes them; deletes
   * the document if it is a tombstone. If nothing changed the document meanwhile, its outbox
   * marker is cleared in the same update. With clearAfterMs, the removal happens that much later
   * unless a change of the document takes it over first (takePublished).
   */
  async publish(doc: OutboxDocument): Promise<void> {
    const events: EventEnvelope[] = [];
    for (const event of pendingEvents(doc)) {
      try {
        await this.jetstream.publish(event);
      } catch (error) {
        // In order: a later event of the document waits for this one, unless this one is now a
        // dead letter (then it is out of the outbox, and the next may go).
        if (await this.refused(doc, event, error)) continue;
        throw error;
      }
      events.push(event);
      if (doc.outboxFailures?.[outboxKey(event.id)]) await this.forgetFailure(doc, event);
    }
    if (doc.tombstone) {
      this.takePublished(doc._id);
      await this.model.deleteOne({ _id: doc._id, outboxAt: doc.outboxAt ?? null });
      return;
    }
    if (events.length === 0 && !doc.outboxAt) return;
    const keys = events.map((event) => outboxKey(event.id));
    const clearAfterMs = this.options.clearAfterMs ?? 0;
    if (clearAfterMs > 0 && !this.stopped) {
      // The document as just written holds every event still in it, so this replaces any earlier
      // pending clear of it.
      this.takePublished(doc._id);
      const pending: PendingClear = {
        id: doc._id,
        outboxAt: doc.outboxAt ?? null,
        keys,
        timer: setTimeout(() => this.runClear(pending), clearAfterMs),
      };
      pending.timer.unref();
      this.clears.set(String(doc._id), pending);
      return;
    }
    await this.clear(doc._id, doc.outboxAt ?? null, keys);
  }

  /**
   * The outbox keys of this document's events that are published but still in it, for the
   * caller to remove in its own next update of the document (`$unset` of `outbox.<key>`); the
   * relay will not remove them itself any more. If that update does not happen after all, hand
   * them back with clearLater().
   */
  takePublished(id: unknown): string[] {
    const pending = this.clears.get(String(id));
    if (!pending) return [];
    clearTimeout(pending.timer);
    this.clears.delete(String(id));
    return pending.keys;
  }

  /** Removes published events from a document soon (after an update that was to remove them failed). */
  clearLater(id: unknown, keys: readonly string[]): void {
    if (keys.length === 0) return;
    const pending: PendingClear = {
      id,
      outboxAt: null,
      keys: [...keys],
      timer: setTimeout(() => this.runClear(pending), this.options.clearAfterMs ?? 0),
    };
    pending.timer.unref();
    this.takePublished(id);
    this.clears.set(String(id), pending);
  }

  private runClear(pending: PendingClear): void {
    if (this.clears.get(String(pending.id)) === pending) this.clears.delete(String(pending.id));
    const run = this.clear(pending.id, pending.outboxAt, pending.keys).catch((error) =>
      this.logger.warn(
        { err: error, id: String(pending.id) },
        'removing published events failed; the sweep will',
      ),
    );
    this.clearing.add(run);
    void run.finally(() => this.clearing.delete(run));
  }

  /** Removes published events; also the outbox marker if the document has not changed since (outboxAt). */
  private async clear(id: unknown, outboxAt: Date | null, keys: readonly string[]): Promise<void> {
    const unset: Record<string, ''> = {};
    for (const key of keys) unset[`outbox.${key}`] = '';
    if (outboxAt) {
      const cleared = await this.model.updateOne(
        { _id: id, outboxAt },
        { ...(keys.length ? { $unset: unset } : {}), $set: { outboxAt: null } },
      );
      if (cleared.matchedCount > 0) return;
    }
    // Someone added events meanwhile: remove only ours; the marker stays for the newer ones.
    if (keys.length) await this.model.updateOne({ _id: id }, { $unset: unset });
  }

  /** Like publish, but a failure is only logged: the sweep retries. For use right after a write. */
  async publishSoon(doc: OutboxDocument): Promise<void> {
    try {
      await this.publish(doc);
    } catch (error) {
      this.logger.warn(
        { err: error, id: String(doc._id) },
        'publishing events failed; the outbox relay will retry',
      );
    }
  }

  /**
   * Refuses a change (503 UNAVAILABLE) while the stream its events go to is full, so that no
   * change is stored whose events cannot be published. Call it before the write.
   */
  assertCanPublish(): void {
    if (this.options.stream) this.jetstream.assertCanPublish(this.options.stream);
  }

  /**
   * Counts a refusal of the event by JetStream in its document (so a restart goes on counting),
   * and moves the event to the dead letters once it was refused often enough over long enough.
   * True when it did. Anything else (a timeout, a lost connection) counts nothing.
   */
  private async refused(doc: OutboxDocument, event: EventEnvelope, error: unknown): Promise<boolean> {
    if (!isPublishRefusal(error)) return false;
    const key = outboxKey(event.id);
    const now = new Date();
    const before = doc.outboxFailures?.[key];
    const failure: OutboxFailure = {
      attempts: (before?.attempts ?? 0) + 1,
      firstAt: before?.firstAt ? new Date(before.firstAt) : now,
      lastAt: now,
      error: describeError(error),
    };
    const attempts = this.options.deadLetterAttempts ?? DEAD_LETTER_ATTEMPTS;
    const afterMs = this.options.deadLetterAfterMs ?? DEAD_LETTER_AFTER_MS;
    if (failure.attempts >= attempts && now.getTime() - failure.firstAt.getTime() >= afterMs) {
      await this.deadLetter(doc, event, failure);
      return true;
    }
    // Straight to the collection: the models' schemas do not declare outboxFailures.
    await this.model.collection.updateOne({ _id: doc._id, [`outbox.${key}`]: { $exists: true } } as never, {
      $set: { [`outboxFailures.${key}`]: failure },
    });
    doc.outboxFailures = { ...doc.outboxFailures, [key]: failure };
    return false;
  }

  /** The event was published after earlier refusals: its count goes (a rare extra write). */
  private async forgetFailure(doc: OutboxDocument, event: EventEnvelope): Promise<void> {
    const key = outboxKey(event.id);
    await this.model.collection.updateOne({ _id: doc._id } as never, {
      $unset: { [`outboxFailures.${key}`]: '' },
    });
    if (doc.outboxFailures) delete doc.outboxFailures[key];
  }

  /**
   * Stores the event as a dead letter (its id is the record's, so a repeat after a crash stores
   * it once), then removes it from the document's outbox: a crash in between leaves it in both,
   * and the next sweep finishes the move.
   */
  private async deadLetter(doc: OutboxDocument, event: EventEnvelope, failure: OutboxFailure): Promise<void> {
    const key = outboxKey(event.id);
    const record: DeadLetterRecord = {
      _id: event.id,
      service: this.options.service ?? 'unknown',
      type: event.type,
      event: encodeOutboxEvent(event),
      source: { collection: this.model.collection.collectionName, id: String(doc._id) },
      error: failure.error,
      attempts: failure.attempts,
      firstFailedAt: failure.firstAt,
      lastFailedAt: failure.lastAt,
      deadAt: new Date(),
    };
    await storeDeadLetter(this.model.db, record);
    await this.model.collection.updateOne({ _id: doc._id } as never, {
      $unset: { [`outbox.${key}`]: '', [`outboxFailures.${key}`]: '' },
    });
    if (doc.outbox) delete doc.outbox[key];
    this.options.metrics?.deadLetters.inc({ type: event.type });
    this.logger.error(
      {
        eventId: event.id,
        type: event.type,
        service: record.service,
        source: record.source,
        attempts: failure.attempts,
        firstFailedAt: failure.firstAt,
        error: failure.error,
      },
      `outbox event ${event.id} moved to the dead letters after ${failure.attempts} refusals by JetStream; replay it with replay-dead-letters once the cause is fixed`,
    );
    await this.countDeadLetters();
  }

  private deadLetters() {
    return this.model.db.collection<DeadLetterRecord>(DEAD_LETTERS_COLLECTION);
  }

  /** Sets the gauge of dead letters waiting for a replay. */
  private async countDeadLetters(): Promise<void> {
    const gauge = this.options.metrics?.deadLettersWaiting;
    if (!gauge) return;
    this.deadLettersCountedAt = Date.now();
    try {
      gauge.set(await this.deadLetters().countDocuments({}));
    } catch (error) {
      this.logger.warn({ err: error }, 'could not count dead letters');
    }
  }

  /** Starts the periodic sweep for events left behind (a crash, NATS briefly away). */
  start(): void {
    this.stopped = false;
    const every = this.options.sweepEveryMs ?? 2000;
    const tick = () => {
      this.sweeping = this.sweep()
        .catch((error) => this.logger.warn({ err: error }, 'outbox sweep failed'))
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(tick, every);
          this.timer.unref();
        });
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /** Stops the sweep after one last pass, so nothing written before shutdown waits for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const pending of [...this.clears.values()]) {
      clearTimeout(pending.timer);
      this.runClear(pending);
    }
    await Promise.allSettled([...this.clearing]);
    await this.sweeping;
    await this.sweep(0).catch((error) => this.logger.warn({ err: error }, 'final outbox sweep failed'));
  }

  /**
   * Publishes what is still in outboxes written at least minAgeMs ago. A document whose events
   * fail is left for the next sweep (its refusals counted) and the sweep goes on with the others;
   * only when NATS cannot be reached at all does it stop early, as every document would wait the
   * same timeout.
   */
  async sweep(minAgeMs = this.options.minAgeMs ?? 3000): Promise<void> {
    const cutoff = new Date(Date.now() - minAgeMs);
    const docs = (await this.model
      .find({ outboxAt: { $ne: null, $lte: cutoff } })
      .limit(500)
      .lean()) as OutboxDocument[];
    let pending = 0;
    let failed = 0;
    let lastError: unknown;
    for (const doc of docs) {
      let count = 0;
      try {
        count = pendingEvents(doc).length;
        pending += count;
        await this.publish(doc);
      } catch (error) {
        failed += 1;
        lastError = error;
        if (isConnectionTrouble(error)) break;
        continue;
      }
      if (count)
        this.logger.info({ id: String(doc._id), events: count }, 'outbox relay published left-over events');
    }
    this.options.metrics?.outboxPending.set(pending);
    if (failed) {
      this.logger.warn(
        { err: lastError, failedDocuments: failed, documents: docs.length },
        'outbox sweep could not publish the events of some documents; will retry',
      );
    }
    if (Date.now() - this.deadLettersCountedAt >= DEAD_LETTERS_COUNT_EVERY_MS) await this.countDeadLetters();
  }
}
