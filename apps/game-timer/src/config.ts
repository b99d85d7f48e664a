import { Streams } from '@oasis198/contracts';
import { baseEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const ms = z.coerce.number().int().positive();

/**
 * The game timer keeps no database: its deadlines are JetStream message schedules (the TIMERS
 * stream), so it needs NATS only.
 */
export const gameTimerEnv = baseEnv.extend({
  /** Port of /health and /metrics (the local stack gives the game timer 3104). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3104),
  /**
   * How long before a deadline the server is asked to fire it. Its scheduler runs at most every
   * 250 ms, so a schedule fires up to that late; the timer takes it early and holds it, unacked,
   * until the exact time.
   */
  TIMER_SCHEDULE_LEAD_MS: z.coerce.number().int().min(0).max(5000).default(500),
  /** How long to wait for the rooms service to answer a due deadline. */
  ROOMS_RPC_TIMEOUT_MS: ms.default(3000),
  /** Due deadlines handed to the rooms service at the same time, at most (per replica). */
  TIMER_MAX_IN_FLIGHT: ms.default(64),
  /**
   * Room events turned into schedules at once, per replica. Their order does not matter (an older
   * snapshot never replaces a newer schedule), and side by side their publishes and acks share
   * socket writes.
   */
  TIMER_ROOM_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
  /**
   * The TIMERS stream's max_bytes (the timer owns the stream and keeps it up to date). It holds a
   * schedule per room with a pending deadline, about 0.5 KiB each; a stream with schedules must
   * discard OLD, so it is sized far above what the rooms ever need.
   */
  TIMERS_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(Streams.timers.maxBytes),
});

export type GameTimerConfig = z.infer<typeof gameTimerEnv>;
