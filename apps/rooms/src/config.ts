import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

export const roomsEnv = baseEnv.merge(mongoEnv).extend({
  /** Port of /health and /metrics (the local stack gives rooms 3103). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3103),
  /** How often the outbox relay looks for events a crash or a NATS outage left unpublished. */
  OUTBOX_SWEEP_MS: z.coerce.number().int().positive().default(2000),
  /**
   * How long published events stay in a room's outbox before they are removed, unless the room's
   * next change removes them in its own update first (one write fewer per move of a game in
   * quick play; docs/benchmarks.md). 0 removes them at once. Keep it below the sweep's 3 s.
   */
  OUTBOX_CLEAR_AFTER_MS: z.coerce.number().int().min(0).max(2500).default(1500),
});

export type RoomsConfig = z.infer<typeof roomsEnv>;
