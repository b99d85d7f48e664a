import type { EventEnvelope } from '@oasis198/contracts';
import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import {
  DEAD_LETTER_AFTER_MS,
  DEAD_LETTER_ATTEMPTS,
  DeadLetterPolicy,
} from '../dead-letters/dead-letter-policy';
import { DEAD_LETTERS_COLLECTION, type DeadLetterRecord } from '../dead-letters/dead-letters';
import { isConnectionTrouble, type JetStreamService } from '../nats/jetstream.service';
import type { Metrics } from '../metrics';
import { type OutboxDocument, type OutboxFailure, outboxKey, pendingEvents } from './outbox-document';

/** How often the sweep recounts the dead letters waiting (a replay runs in another process). */
const DEAD_LETTERS_COUNT_EVERY_MS = 60_000;

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
  private readonly deadLetterPolicy: DeadLetterPolicy;

  constructor(
    private readonly model: Model<T>,
    private readonly jetstream: JetStreamService,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions = {},
  ) {
    this.deadLetterPolicy = new DeadLetterPolicy(
      model.db,
      {
        attempts: options.deadLetterAttempts ?? DEAD_LETTER_ATTEMPTS,
        afterMs: options.deadLetterAfterMs ?? DEAD_LETTER_AFTER_MS,
      },
      { service: options.service ?? 'unknown', logger, metrics: options.metrics },
    );
  }

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
    if (!this.deadLetterPolicy.counts(error)) return false;
    const key = outboxKey(event.id);
    const failure: OutboxFailure = this.deadLetterPolicy.count(doc.outboxFailures?.[key], error);
    if (this.deadLetterPolicy.isDue(failure)) {
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
    const source = { collection: this.model.collection.collectionName, id: String(doc._id) };
    await this.deadLetterPolicy.bury(event, failure, source, 'outbox');
    await this.model.collection.updateOne({ _id: doc._id } as never, {
      $unset: { [`outbox.${key}`]: '', [`outboxFailures.${key}`]: '' },
    });
    if (doc.outbox) delete doc.outbox[key];
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
