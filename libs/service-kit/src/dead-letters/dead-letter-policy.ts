import type { EventEnvelope } from '@oasis198/contracts';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import { isDuplicateKeyError } from '../mongo';
import { isPublishRefusal } from '../nats/nats-errors';
import { DEAD_LETTERS_COLLECTION, type DeadLetterRecord } from './dead-letters';

/** Refusals of one event before it becomes a dead letter, and the time they must span (publisherEnv's defaults). */
export const DEAD_LETTER_ATTEMPTS = 10;
export const DEAD_LETTER_AFTER_MS = 60_000;

export interface DeadLetterLimits {
  /** Refusals by JetStream of one event before it becomes a dead letter... */
  attempts: number;
  /** ...spread over at least this long (a full stream may be made room for meanwhile). */
  afterMs: number;
}

/** How often and since when JetStream has refused one event. */
export interface Refusals {
  attempts: number;
  firstAt: Date;
  lastAt: Date;
  /** The last refusal's reason. */
  error: string;
}

/** A refusal's reason as JetStream gave it. */
export function describeError(error: unknown): string {
  const e = error as { api_error?: { description?: string }; message?: string } | null;
  return e?.api_error?.description ?? e?.message ?? String(error);
}

/**
 * Stores a dead letter in the service's `dead_letters` collection (its id is the event's, so a
 * repeat after a crash stores it once).
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

/**
 * The one dead-letter policy of every publisher (the outbox relay, rooms' log projector): an
 * event JetStream keeps refusing (a full stream, a message too large, no stream for its subject)
 * must not hold up the others, so after `attempts` refusals over at least `afterMs` it moves to
 * the service's dead letters, to be replayed (replay-dead-letters) once the cause is fixed.
 * Timeouts and lost connections are not refusals: those events wait however long it takes.
 */
export class DeadLetterPolicy {
  constructor(
    private readonly db: Parameters<typeof storeDeadLetter>[0],
    private readonly limits: DeadLetterLimits,
    private readonly options: { service: string; logger: Logger; metrics?: Metrics },
  ) {}

  /** Whether the failure is a refusal that counts towards a dead letter (else it is retried as it is). */
  counts(error: unknown): boolean {
    return isPublishRefusal(error);
  }

  /** The refusals of an event with this one added (`before`: the earlier ones, if any). */
  count(
    before: Pick<Refusals, 'attempts' | 'firstAt'> | undefined,
    error: unknown,
    now = new Date(),
  ): Refusals {
    return {
      attempts: (before?.attempts ?? 0) + 1,
      firstAt: before?.firstAt ? new Date(before.firstAt) : now,
      lastAt: now,
      error: describeError(error),
    };
  }

  /** Whether the event has been refused often enough over long enough to become a dead letter. */
  isDue(refusals: Refusals): boolean {
    return (
      refusals.attempts >= this.limits.attempts &&
      refusals.lastAt.getTime() - refusals.firstAt.getTime() >= this.limits.afterMs
    );
  }

  /** Stores the event as a dead letter, counts it and logs how to replay it. */
  async bury(
    event: EventEnvelope,
    refusals: Refusals,
    source: DeadLetterRecord['source'],
    what: string,
  ): Promise<void> {
    const record: DeadLetterRecord = {
      _id: event.id,
      service: this.options.service,
      type: event.type,
      event: JSON.stringify(event),
      source,
      error: refusals.error,
      attempts: refusals.attempts,
      firstFailedAt: refusals.firstAt,
      lastFailedAt: refusals.lastAt,
      deadAt: new Date(),
    };
    await storeDeadLetter(this.db, record);
    this.options.metrics?.deadLetters.inc({ type: event.type });
    this.options.logger.error(
      {
        eventId: event.id,
        type: event.type,
        service: record.service,
        source,
        attempts: refusals.attempts,
        firstFailedAt: refusals.firstAt,
        error: refusals.error,
      },
      `${what} event ${event.id} moved to the dead letters (${DEAD_LETTERS_COLLECTION}) after ${refusals.attempts} refusals by JetStream; replay it with replay-dead-letters once the cause is fixed`,
    );
  }
}
