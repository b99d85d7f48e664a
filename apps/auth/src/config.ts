import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const positiveInt = z.coerce.number().int().positive();

export const authEnv = baseEnv.merge(mongoEnv).extend({
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3101),
  /** HS256 signing key of the access tokens; the local stack keeps one in .data/jwt-secret. */
  JWT_SECRET: z
    .string({ error: 'is required: a random secret of at least 32 characters' })
    .min(32, 'must be at least 32 characters long'),
  /** Token lifetime in seconds (7 days). */
  JWT_TTL_S: positiveInt.default(7 * 24 * 60 * 60),
  /** The `iss` claim written and required. */
  JWT_ISSUER: z.string().min(1).default('oasis198-auth'),
  /** How often expired entries of the revocation list are removed (no TTL indexes on FerretDB). */
  REVOCATION_SWEEP_S: positiveInt.default(600),
  /** How often the outbox relay looks for events a crash left unpublished. */
  OUTBOX_SWEEP_MS: positiveInt.default(2000),
  /** argon2id cost (OWASP's minimum profile: 19 MiB, 2 passes, 1 lane). */
  PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(8192).default(19456),
  PASSWORD_HASH_PASSES: z.coerce.number().int().min(2).default(2),
});

export type AuthConfig = z.infer<typeof authEnv>;
