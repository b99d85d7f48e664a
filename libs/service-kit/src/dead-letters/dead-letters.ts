import type { EventEnvelope } from '@oasis198/contracts';
import type { PubAck } from 'nats';

/** The collection, in each publishing service's own database, that holds its dead letters. */
export const DEAD_LETTERS_COLLECTION = 'dead_letters';

/**
 * An outbox event JetStream kept refusing (OutboxRelay), set aside so it holds up nothing else,
 * until replayDeadLetters publishes it.
 */
export interface DeadLetterRecord {
  /** The event's id, also its msg-id: a replay is de-duplicated like any repeat. */
  _id: string;
  /** The service whose outbox it came from. */
  service: string;
  type: string;
  /** The event as its JSON text, exactly as it was to be published. */
  event: string;
  /** The document whose outbox held it. */
  source: { collection: string; id: string };
  /** The last refusal's reason (e.g. 'maximum bytes exceeded'). */
  error: string;
  attempts: number;
  firstFailedAt: Date;
  lastFailedAt: Date;
  deadAt: Date;
}

/** The few collection methods a replay uses (a MongoDB driver or mongoose collection). */
export interface DeadLetterStore {
  find(filter: Record<string, never>): {
    sort(sort: Record<string, 1 | -1>): { toArray(): Promise<DeadLetterRecord[]> };
  };
  deleteOne(filter: { _id: string }): Promise<{ deletedCount: number }>;
}

export interface ReplaySummary {
  /** Published now, or found already in the stream (a repeated msg-id). */
  replayed: number;
  /** Still refused (or NATS away): their records stay for the next replay. */
  failed: number;
}

/**
 * Publishes every dead letter again with its original msg-id, oldest first, and deletes each
 * record only after JetStream acknowledged the event (stored now, or already stored: a repeated
 * msg-id within the stream's duplicate window). Consumers are idempotent (rewards pays a game
 * once per player whatever redeliveries happen), so a replay of something already delivered
 * changes nothing. Reports each step through `report`.
 */
export async function replayDeadLetters(
  store: DeadLetterStore,
  publisher: { publish(event: EventEnvelope): Promise<PubAck> },
  report: (line: string) => void,
): Promise<ReplaySummary> {
  const records = await store.find({}).sort({ firstFailedAt: 1, _id: 1 }).toArray();
  report(records.length ? `${records.length} dead letter(s) to replay` : 'no dead letters to replay');
  const summary: ReplaySummary = { replayed: 0, failed: 0 };
  for (const record of records) {
    const label = `${record._id} (${record.type}, from ${record.source.collection} ${record.source.id})`;
    let event: EventEnvelope;
    try {
      event = JSON.parse(record.event) as EventEnvelope;
    } catch {
      summary.failed += 1;
      report(`kept ${label}: its event is not valid JSON`);
      continue;
    }
    let ack: PubAck;
    try {
      ack = await publisher.publish(event);
    } catch (error) {
      summary.failed += 1;
      report(`kept ${label}: still refused: ${describe(error)}`);
      continue;
    }
    await store.deleteOne({ _id: record._id });
    summary.replayed += 1;
    report(
      ack.duplicate
        ? `replayed ${label}: already in stream ${ack.stream} (seq ${ack.seq}); record deleted`
        : `replayed ${label}: stored in stream ${ack.stream} as seq ${ack.seq}; record deleted`,
    );
  }
  report(`done: ${summary.replayed} replayed, ${summary.failed} kept`);
  return summary;
}

function describe(error: unknown): string {
  const e = error as { api_error?: { description?: string }; message?: string; code?: string } | null;
  return e?.api_error?.description ?? e?.message ?? e?.code ?? String(error);
}
