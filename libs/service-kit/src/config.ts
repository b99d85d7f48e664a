import { z } from 'zod';

/** Thrown when the environment does not describe a runnable service; the message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the environment once, at start-up, into one validated, typed object. A missing or bad
 * variable stops the service with a message naming it.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    return `${variable}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
}

const port = z.coerce.number().int().min(1).max(65535);
const positiveMs = z.coerce.number().int().positive();

/** Variables every service reads. */
export const baseEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z
    .string({ error: 'is required, e.g. nats://127.0.0.1:4222' })
    .regex(/^(nats|tls|ws|wss):\/\/\S+$/, 'must be a nats:// URL (several may be given, comma-separated)'),
  /** Port of the HTTP server with /health and /metrics (the gateway's public port). */
  HTTP_PORT: port.default(3000),
  /** On shutdown, how long NATS requests already received may take to answer before the connection closes. */
  SHUTDOWN_GRACE_MS: positiveMs.default(1500),
});

/** Variables of services that own a MongoDB database. */
export const mongoEnv = z.object({
  MONGO_URL: z
    .string({ error: 'is required, e.g. mongodb://127.0.0.1:27017/oasis-auth' })
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// URL that names the database'),
});

export type BaseConfig = z.infer<typeof baseEnv>;
export type MongoConfig = z.infer<typeof mongoEnv>;

export const natsServers = (url: string): string[] =>
  url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
