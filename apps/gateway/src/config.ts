import { baseEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const gatewayEnv = baseEnv.extend({
  /** Public HTTP port (the local stack sets PORT; HTTP_PORT also works). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  /** How long the gateway waits for a service's answer before answering 503. */
  RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Origins allowed to call the API from a browser (comma-separated); empty = same origin only. */
  CORS_ORIGINS: list,
  /** Folder of the built web app to serve on the same origin (local stack); unset in Kubernetes. */
  WEB_DIST_DIR: z.string().optional(),
  /** Express "trust proxy" setting, so rate limits see the client address behind an ingress. */
  TRUST_PROXY: z.string().default('loopback'),
  /** Failed logins per client address and e-mail before 429, within LOGIN_FAILURE_WINDOW_S. */
  LOGIN_MAX_FAILURES: z.coerce.number().int().positive().default(5),
  LOGIN_FAILURE_WINDOW_S: z.coerce.number().int().positive().default(900),
  /** Registrations per client address within REGISTER_WINDOW_S before 429. */
  REGISTER_MAX_PER_WINDOW: z.coerce.number().int().positive().default(20),
  REGISTER_WINDOW_S: z.coerce.number().int().positive().default(3600),
  /** How long a verified token is trusted without asking auth again (revocations evict at once). */
  TOKEN_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
});

export type GatewayConfig = z.infer<typeof gatewayEnv>;

/** The local stack and the issue call the public port PORT; services call it HTTP_PORT. */
export function gatewayEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, HTTP_PORT: env['PORT'] ?? env['HTTP_PORT'] };
}
