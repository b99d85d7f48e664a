import { Streams } from '@oasis198/contracts';
import { baseEnv, ecKeyPem, mongoEnv, publisherEnv, refusePublishedSigningKeys } from '@oasis198/service-kit';
import { z } from 'zod';

const positiveInt = z.coerce.number().int().positive();

export const authEnv = baseEnv
  .merge(mongoEnv)
  .extend({
    HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3101),
    /**
     * The ES256 private key (PEM, P-256) auth signs access tokens with; gateways hold only its
     * public key. The local stack keeps a random one in .data/jwt-key.pem; a published key is
     * refused in production.
     */
    JWT_PRIVATE_KEY: ecKeyPem('private'),
    /** Token lifetime in seconds (7 days). */
    JWT_TTL_S: positiveInt.default(7 * 24 * 60 * 60),
    /** The `iss` claim written and required. */
    JWT_ISSUER: z.string().min(1).default('oasis198-auth'),
    /** E-mail and password changes and deletion need a login at most this many seconds old. */
    REAUTH_WINDOW_S: positiveInt.default(600),
    /**
     * Logged-out tokens a user's record in the token bucket lists one by one; beyond that, tokens
     * issued at or before the oldest listed one are void too, so a record stays about 1 kB.
     */
    TOKENS_LOGGED_OUT_PER_USER: positiveInt.max(1000).default(16),
    /**
     * Bytes the token bucket (logouts, password changes, deletions, renames that gateways watch)
     * may hold; its entries age out with the token lifetime. When it is full, logouts and those
     * changes answer 503 rather than be forgotten.
     */
    TOKENS_BUCKET_MAX_BYTES: positiveInt.default(64 * 1024 * 1024),
    /** How often the outbox relay looks for events a crash left unpublished. */
    OUTBOX_SWEEP_MS: positiveInt.default(2000),
    /** argon2id cost (OWASP's minimum profile: 19 MiB, 2 passes, 1 lane). */
    PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(8192).default(19456),
    PASSWORD_HASH_PASSES: z.coerce.number().int().min(2).default(2),
    /**
     * Hashes run at once; more wait in line, and one whose caller gave up by its turn is dropped.
     * Default 4: Node's thread pool, where argon2 runs (UV_THREADPOOL_SIZE), has 4 threads.
     */
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /**
     * Where mail goes out (DECISIONS "Forgotten password"): smtp:// or smtps://, with the user and
     * password in it when the server wants them. The local stacks run Mailpit on 1025.
     */
    SMTP_URL: z.string().url().default('smtp://127.0.0.1:1025'),
    /** The From of every mail. */
    MAIL_FROM: z.string().min(3).default('Oasis 198 <no-reply@oasis198.local>'),
    /** The web app's address as players open it: reset links point at its /reset-password page. */
    PUBLIC_WEB_URL: z
      .string()
      .url()
      .default('http://localhost:8080')
      .transform((url) => url.replace(/\/+$/, '')),
    /** How long a reset link works (30 min). */
    RESET_TOKEN_TTL_S: positiveInt.default(30 * 60),
    /** How often notices a crash left unsent are looked for and sent. */
    MAIL_SWEEP_MS: positiveInt.default(5000),
    /** Dead letters of refused events, and the watch on the USERS stream's room (service-kit outbox.ts). */
    ...publisherEnv,
    /**
     * Bytes the USERS stream may hold (auth keeps the stream's limits up to date at start-up).
     * When it is full, registrations, renames and deletions answer 503 until there is room.
     */
    USERS_STREAM_MAX_BYTES: positiveInt.default(Streams.users.maxBytes),
    /** The largest event the USERS stream accepts. */
    USERS_STREAM_MAX_MSG_SIZE: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(Streams.users.maxMsgSize),
  })
  .superRefine(refusePublishedSigningKeys('JWT_PRIVATE_KEY'));

export type AuthConfig = z.infer<typeof authEnv>;
