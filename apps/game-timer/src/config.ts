import { baseEnv, scheduleWriterEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const ms = z.coerce.number().int().positive();

/**
 * The game timer keeps no database: its deadlines are JetStream message schedules (the TIMERS
 * stream, written by rooms with every room change), so it needs NATS only.
 */
export const gameTimerEnv = baseEnv.extend({
  /** Port of /health and /metrics (the local stack gives the game timer 3104). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3104),
  ...scheduleWriterEnv,
  /** How long to wait for the rooms service to answer a due deadline. */
  ROOMS_RPC_TIMEOUT_MS: ms.default(3000),
  /** Due deadlines handed to the rooms service at the same time, at most (per replica). */
  TIMER_MAX_IN_FLIGHT: ms.default(64),
});

export type GameTimerConfig = z.infer<typeof gameTimerEnv>;
