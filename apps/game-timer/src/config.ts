import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const ms = z.coerce.number().int().positive();

export const gameTimerEnv = baseEnv.merge(mongoEnv).extend({
  /** Port of /health and /metrics (the local stack gives the game timer 3104). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3104),
  /** How often each replica looks for deadlines falling due soon. */
  TIMER_POLL_MS: ms.default(500),
  /** How far ahead a poll reads deadlines and arms in-memory timers for them. */
  TIMER_LOOKAHEAD_MS: ms.default(2000),
  /** How long a replica's lease on its shards lasts without renewal: a replica that dies frees them after this. */
  TIMER_LEASE_MS: ms.default(5000),
  /** How long to wait for the rooms service to answer a due deadline. */
  ROOMS_RPC_TIMEOUT_MS: ms.default(3000),
  /** Due deadlines handed to the rooms service at the same time, at most. */
  TIMER_MAX_IN_FLIGHT: ms.default(64),
});

export type GameTimerConfig = z.infer<typeof gameTimerEnv>;
