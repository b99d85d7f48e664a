import { z } from 'zod';
import { DEAD_LETTER_AFTER_MS, DEAD_LETTER_ATTEMPTS } from '../dead-letters/dead-letter-policy';
import type { OutboxRelayOptions } from './outbox-relay';

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
