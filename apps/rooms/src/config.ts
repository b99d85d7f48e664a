import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

export const roomsEnv = baseEnv.merge(mongoEnv).extend({
  /** Port of /health and /metrics (the local stack gives rooms 3103). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3103),
  /** How often the outbox relay looks for events a crash or a NATS outage left unpublished. */
  OUTBOX_SWEEP_MS: z.coerce.number().int().positive().default(2000),
});

export type RoomsConfig = z.infer<typeof roomsEnv>;
