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
 */
export interface OutboxDocument {
  _id: unknown;
  outbox?: Record<string, EventEnvelope> | null;
  outboxAt?: Date | null;
  tombstone?: boolean;
}

export const outboxKey = (eventId: string): string => eventId.replace(/[.$]/g, '_');

/** The `$set` fields that add events to a document's outbox in the same update as the change. */
export function outboxFields(events: readonly EventEnvelope[], now = new Date()): Record<string, unknown> {
  const fields: Record<string, unknown> = { outboxAt: now };
  for (const event of events) fields[`outbox.${outboxKey(event.id)}`] = event;
  return fields;
}

/** Events in the order they happened (their occurredAt, then their ids). */
export function pendingEvents(doc: Pick<OutboxDocument, 'outbox'>): EventEnvelope[] {
  return Object.values(doc.outbox ?? {}).sort(
    (a, b) =>
      a.occurredAt.localeCompare(b.occurredAt) || a.id.localeCompare(b.id, undefined, { numeric: true }),
  );
}

export class OutboxRelay<T extends OutboxDocument = OutboxDocument> {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly model: Model<T>,
    private readonly jetstream: JetStreamService,
    private readonly logger: Logger,
    private readonly options: { sweepEveryMs?: number; minAgeMs?: number; metrics?: Metrics } = {},
  ) {}

  /**
   * Publishes every event in the document's outbox (as just written) and removes them; deletes
   * the document if it is a tombstone. If nothing changed the document meanwhile, its outbox
   * marker is cleared in the same update.
   */
  async publish(doc: OutboxDocument): Promise<void> {
    const events = pendingEvents(doc);
    for (const event of events) await this.jetstream.publish(event);
    if (doc.tombstone) {
      await this.model.deleteOne({ _id: doc._id, outboxAt: doc.outboxAt ?? null });
      return;
    }
    if (events.length === 0 && !doc.outboxAt) return;
    const unset: Record<string, ''> = {};
    for (const event of events) unset[`outbox.${outboxKey(event.id)}`] = '';
    const cleared = await this.model.updateOne(
      { _id: doc._id, outboxAt: doc.outboxAt ?? null },
      { ...(events.length ? { $unset: unset } : {}), $set: { outboxAt: null } },
    );
    // Someone added events meanwhile: remove only ours; the marker stays for the newer ones.
    if (cleared.matchedCount === 0 && events.length)
      await this.model.updateOne({ _id: doc._id }, { $unset: unset });
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
