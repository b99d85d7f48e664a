import type { EventEnvelope } from '@oasis198/contracts';
import type { Refusals } from '../dead-letters/dead-letter-policy';

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
export type OutboxFailure = Refusals;

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
