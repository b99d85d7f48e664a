import type { EventEnvelope } from '@oasis198/contracts';
import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import type { JetStreamService } from './nats/jetstream.service';
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
 * events are added) and, when being deleted, `tombstone`.
 *
 * Each event is stored as its JSON text, not as a sub-document: nothing queries inside an event,
 * and FerretDB's cost for every read and write of a document grows with the number of values in
 * it (a room's room.updated event carries the whole room; docs/benchmarks.md). Events stored as
 * sub-documents (written before) are still read.
 */
export interface OutboxDocument {
  _id: unknown;
  outbox?: Record<string, string | EventEnvelope> | null;
  outboxAt?: Date | null;
  tombstone?: boolean;
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
   * play; docs/benchmarks.md). Keep it below minAgeMs, or the sweep publishes them again (harmless:
   * JetStream drops a repeated msg-id). 0 (the default) removes them at once.
   */
  clearAfterMs?: number;
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
    const events = pendingEvents(doc);
    for (const event of events) await this.jetstream.publish(event);
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

  /** Publishes what is still in outboxes written at least minAgeMs ago. */
  async sweep(minAgeMs = this.options.minAgeMs ?? 3000): Promise<void> {
    const cutoff = new Date(Date.now() - minAgeMs);
    const docs = (await this.model
      .find({ outboxAt: { $ne: null, $lte: cutoff } })
      .limit(500)
      .lean()) as OutboxDocument[];
    let pending = 0;
    for (const doc of docs) {
      const count = pendingEvents(doc).length;
      pending += count;
      await this.publish(doc);
      if (count)
        this.logger.info({ id: String(doc._id), events: count }, 'outbox relay published left-over events');
    }
    this.options.metrics?.outboxPending.set(pending);
  }
}
