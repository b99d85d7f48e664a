import { natsInboxPrefix } from '@oasis198/contracts';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_NATS_RETRY_BUDGET_MS } from './nats/jetstream-retry';

/** Thrown when the environment does not describe a runnable service; the message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the environment once, at start-up, into one validated, typed object. A missing or bad
 * variable stops the service with a message naming it.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  const { values, problems: fileProblems } = withFileVariables(env, shape ? Object.keys(shape) : []);
  // Rules across baseEnv's variables live here: an object schema with refinements cannot be merged.
  const result = schema.superRefine(checkNatsCredentials).safeParse(values);
  if (result.success && fileProblems.length === 0) return result.data;
  const issues = result.success ? [] : result.error.issues;
  const problems = [
    ...fileProblems,
    ...issues.map((issue) => {
      const variable = issue.path.join('.') || '(environment)';
      return `${variable}: ${issue.message}`;
    }),
  ];
  throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
}

/**
 * The Docker and Kubernetes convention for secrets as files: `<NAME>_FILE=/run/secrets/x` gives
 * NAME the file's content (one trailing newline dropped), so a secret needs no environment
 * variable that `ps e`, crash dumps or `kubectl describe` could show. Setting both is an error.
 */
export function withFileVariables(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): { values: NodeJS.ProcessEnv; problems: string[] } {
  const values: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  // Only the service's own variables: other programs' *_FILE variables are none of its business.
  for (const name of names) {
    const key = `${name}_FILE`;
    const file = env[key];
    if (!file) continue;
    if (env[name] !== undefined) {
      problems.push(`${key}: set either ${name} or ${key}, not both`);
      continue;
    }
    try {
      values[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${key}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { values, problems };
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
  /** On shutdown, how long NATS requests already received may take to answer, at most, before the connection closes. */
  SHUTDOWN_GRACE_MS: positiveMs.default(10_000),
  /**
   * The service's NATS user and its password (both or neither). Unset: no credentials (the local
   * stack). Replies then come to `_INBOX.<NATS_USER>.>`, so the server can keep each user's replies
   * to that user (libs/contracts natsPermissions).
   */
  NATS_USER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a plain name: letters, digits, "-" and "_"')
    .optional(),
  /** Surrounding whitespace (a Secret written from a file) is dropped, as the charts' NATS does. */
  NATS_PASSWORD: z.string().trim().min(1).optional(),
  /**
   * Copies JetStream keeps of each stream and KV bucket: 1 on a single server, 3 on a three-node
   * cluster (a node may fail without losing a write). Publishers bring existing streams to it.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * How long a JetStream call on a player's path retries while a stream or KV bucket elects a new
   * leader (one NATS node down), before it answers 503; a request's deadline ends it sooner. 0: no retry.
   */
  NATS_RETRY_BUDGET_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_NATS_RETRY_BUDGET_MS),
});

/** Variables of services that own a MongoDB database. */
export const mongoEnv = z.object({
  MONGO_URL: z
    .string({ error: 'is required, e.g. mongodb://127.0.0.1:27017/oasis-auth' })
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// URL that names the database'),
  /**
   * Connections a replica may hold to the database. Writes queued in the database (FerretDB lets
   * one through at a time) each hold one while they wait: too few, and reads queue behind them.
   */
  MONGO_MAX_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
});

export type BaseConfig = z.infer<typeof baseEnv>;
export type MongoConfig = z.infer<typeof mongoEnv>;

export const natsServers = (url: string): string[] =>
  url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Where and as whom a service connects to NATS, as nats.js and the NestJS transport take it. */
export interface NatsEndpoint {
  servers: string[];
  user?: string;
  pass?: string;
  /** Replies to this connection's requests arrive under `<inboxPrefix>.>`. */
  inboxPrefix?: string;
}

/** The NATS connection settings of a service: servers, and its own user when NATS_USER is set. */
export function natsEndpoint(
  config: Pick<BaseConfig, 'NATS_URL' | 'NATS_USER' | 'NATS_PASSWORD'>,
): NatsEndpoint {
  const servers = natsServers(config.NATS_URL);
  if (!config.NATS_USER) return { servers };
  return {
    servers,
    user: config.NATS_USER,
    pass: config.NATS_PASSWORD,
    inboxPrefix: natsInboxPrefix(config.NATS_USER),
  };
}

function checkNatsCredentials(value: unknown, ctx: z.RefinementCtx): void {
  const config = value as Partial<BaseConfig> | undefined;
  if (!config || typeof config !== 'object') return;
  if (config.NATS_USER && !config.NATS_PASSWORD) {
    ctx.addIssue({ code: 'custom', path: ['NATS_PASSWORD'], message: 'is required when NATS_USER is set' });
  }
  if (config.NATS_PASSWORD && !config.NATS_USER) {
    ctx.addIssue({ code: 'custom', path: ['NATS_USER'], message: 'is required when NATS_PASSWORD is set' });
  }
  refuseKnownSecrets('NATS_PASSWORD')(config, ctx);
}

// ---------------------------------------------------------------------------------------------
// Secrets

/**
 * Values that must never protect anything real: every secret committed to this repository (the
 * dev overlay's old signing key, the charts' ci values, the test suites' keys), compared ignoring
 * case and punctuation. Add any new committed secret here.
 */
const KNOWN_SECRETS = [
  'dev-only-not-secret-0123456789abcdef0123456789',
  'ci-only-0123456789abcdef0123456789abcdef',
  'integration-test-secret-0123456789abcdef',
  'auth-integration-secret-0123456789abcdef',
  'unit-test-secret-0123456789abcdef0123',
].map(normalizeSecret);

/** Words and runs that give a hand-typed placeholder away (long enough not to occur by chance). */
const PLACEHOLDER_PARTS = [
  'changeme',
  'secret',
  'password',
  'passwd',
  'placeholder',
  'example',
  'replaceme',
  'insecure',
  'devonly',
  'testonly',
  'cionly',
  '0123456789',
  'abcdefghij',
  'qwertyuiop',
];

function normalizeSecret(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a secret is published or a placeholder: a committed value, a placeholder word or run,
 * fewer than 8 distinct characters, or a short pattern repeated.
 */
export function isKnownSecret(value: string): boolean {
  const normalized = normalizeSecret(value);
  if (KNOWN_SECRETS.includes(normalized)) return true;
  if (PLACEHOLDER_PARTS.some((part) => normalized.includes(part))) return true;
  if (new Set(value).size < 8) return true;
  for (let period = 1; period <= value.length / 2; period++) {
    if (value.length % period === 0 && value.slice(0, period).repeat(value.length / period) === value) {
      return true;
    }
  }
  return false;
}

/**
 * An ES256 key as PEM: the P-256 private key (PKCS#8) auth signs access tokens with, or its public
 * key (SPKI) the gateways check them with. A private key where the public one belongs is refused:
 * gateways must not be able to sign.
 */
export const ecKeyPem = (kind: 'private' | 'public') =>
  z
    .string({ error: `is required: the ${kind} key of the token signing key pair, as PEM` })
    .superRefine((pem, ctx) => {
      const problem = ecKeyProblem(pem, kind);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

function ecKeyProblem(pem: string, kind: 'private' | 'public'): string | undefined {
  const isPrivate = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem);
  if (kind === 'public' && isPrivate) return 'is a private key: give the public key only';
  try {
    const key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      return 'must be an EC key on curve P-256 (ES256)';
  } catch {
    return `must be a PEM ${kind} key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)`;
  }
  return undefined;
}

/**
 * SHA-256 of the public keys (SPKI, DER) of signing key pairs published in this repository (the
 * charts' CI values): a service in production refuses them, as it refuses known secrets.
 */
const PUBLISHED_SIGNING_KEYS = ['3de115b525caded979ec78af015ae9da87499d2a03ee58d5c7ff56b8ff8972c9'];

/** Whether a PEM key (private or public) belongs to a published key pair. */
export function isPublishedSigningKey(pem: string): boolean {
  try {
    const isPrivate = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem);
    const publicKey = isPrivate ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
    const der = publicKey.export({ type: 'spki', format: 'der' });
    return PUBLISHED_SIGNING_KEYS.includes(createHash('sha256').update(der).digest('hex'));
  } catch {
    return false; // not a key: ecKeyPem reports that
  }
}

/** Refinement of a service's config: with NODE_ENV=production, a published signing key is refused. */
export function refusePublishedSigningKeys(...names: string[]) {
  return (value: unknown, ctx: z.RefinementCtx): void => {
    const config = value as Record<string, unknown> | undefined;
    if (config?.['NODE_ENV'] !== 'production') return;
    for (const name of names) {
      const pem = config[name];
      if (typeof pem === 'string' && isPublishedSigningKey(pem)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            'is a published key, refused in production: make your own, e.g. openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256',
        });
      }
    }
  };
}

/** A signing key (HS256 and the like): at least 32 characters; see refuseKnownSecrets for production. */
export const signingSecret = () =>
  z
    .string({ error: 'is required: a random secret of at least 32 characters' })
    .min(32, 'must be at least 32 characters long');

/**
 * Refinement of a service's config: with NODE_ENV=production, the named secrets must not be known
 * or placeholder values (isKnownSecret). Development and test runs may use them. The message names
 * the variable, never the value.
 *
 *   export const env = baseEnv.extend({ API_KEY: signingSecret() })
 *     .superRefine(refuseKnownSecrets('API_KEY'));
 */
export function refuseKnownSecrets(...names: string[]) {
  return (value: unknown, ctx: z.RefinementCtx): void => {
    const config = value as Record<string, unknown> | undefined;
    if (config?.['NODE_ENV'] !== 'production') return;
    for (const name of names) {
      const secret = config[name];
      if (typeof secret === 'string' && isKnownSecret(secret)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            'is a known or placeholder value, refused in production: use a random one, e.g. openssl rand -hex 32',
        });
      }
    }
  };
}
