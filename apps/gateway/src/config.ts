import { baseEnv, ecKeyPem, limitsBucketEnv, refusePublishedSigningKeys } from '@oasis198/service-kit';
import { isIP } from 'node:net';
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

/** A limit's number: a whole number from 1. */
const limit = (byDefault: number) => z.coerce.number().int().positive().default(byDefault);

export const gatewayEnv = baseEnv
  .extend({
    /** Public HTTP port (the local stack sets PORT; HTTP_PORT also works). */
    HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
    /**
     * How long an idle client connection stays open. Longer than whatever sits in front keeps its
     * idle upstream connections (ingress-nginx and cloud load balancers: 60 s): otherwise the proxy
     * can reuse a connection the gateway is just closing, and its request meets a reset.
     */
    HTTP_KEEP_ALIVE_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(65),
    /**
     * On shutdown, how long the gateway keeps answering on kept-alive connections (each answer with
     * Connection: close, so clients retire them) before it closes the idle ones.
     */
    HTTP_DRAIN_MS: z.coerce.number().int().min(0).max(20_000).default(2000),
    /**
     * How long the gateway waits for a service's answer before answering 503. Unset: 5 s on one
     * NATS server, 12 s on a cluster (NATS_STREAM_REPLICAS above 1), where a node's crash holds its
     * streams' writes until new leaders are elected, 4-9 s, and a player should wait, not fail.
     */
    RPC_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
    /** Origins allowed to call the API from a browser (comma-separated); empty = same origin only. */
    CORS_ORIGINS: list,
    /** Folder of the built web app to serve on the same origin (local stack); unset in Kubernetes. */
    WEB_DIST_DIR: z.string().optional(),
    /**
     * Whose X-Forwarded-For the rate limits believe (Express "trust proxy"): a hop count ("1", the
     * charts' default: the ingress controller in front of the gateway), or the proxies' addresses,
     * CIDRs and the names loopback, linklocal, uniquelocal, comma-separated. Never "true": every
     * client could then choose its own address. Default loopback: the local stack has no proxy.
     */
    TRUST_PROXY: z.string().default('loopback').transform(parseTrustProxy),
    /**
     * The per-address limits count an IPv6 client by its network of this many bits, not by its one
     * address: a subscriber holds a whole /56 (or /64) and could rotate through it. IPv4 counts by
     * address.
     */
    LIMIT_IPV6_PREFIX: z.coerce.number().int().min(32).max(128).default(56),
    // Limits (DECISIONS "Fair play"). The counting ones hold across all gateway replicas together
    // (a NATS KV bucket); test and benchmark stacks raise them, since all their players share one address.
    /** Failed logins per account (e-mail) within LOGIN_FAILURE_WINDOW_S; then 429 until the window ends. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT: limit(10),
    /** Failed logins per client address within LOGIN_FAILURE_WINDOW_S; then 429 until the window ends. */
    LOGIN_MAX_FAILURES_PER_ADDRESS: limit(10),
    LOGIN_FAILURE_WINDOW_S: limit(900),
    /** Registrations per client address within REGISTER_WINDOW_S before 429. */
    REGISTER_MAX_PER_WINDOW: limit(20),
    REGISTER_WINDOW_S: limit(3600),
    /** Per user: rooms created a minute. */
    ROOM_CREATES_PER_MINUTE: limit(10),
    /** Per user: leaves (PATCH edit with players.removePlayer) and deletes a minute, together. */
    ROOM_LEAVES_PER_MINUTE: limit(20),
    /** Per user: room edits (join, ready, move) a second. */
    ROOM_EDITS_PER_SECOND: limit(10),
    /** Per user: reward writes (POST, PATCH, DELETE /api/rewards/...) a minute. */
    REWARD_WRITES_PER_MINUTE: limit(10),
    /** Per account (e-mail): successful logins a minute; more answer 429, the right password included. */
    LOGIN_SUCCESSES_PER_MINUTE: limit(10),
    /** Per user: logouts a minute. */
    LOGOUTS_PER_MINUTE: limit(10),
    /** Per user: account edits (name, e-mail, password) an hour, every attempt counted. */
    ACCOUNT_EDITS_PER_HOUR: limit(10),
    /**
     * Password checks and hashes (logins, registrations, password changes) a minute, per account
     * (the e-mail, or the user for a password change) and per client address.
     */
    PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: limit(10),
    PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: limit(30),
    /** Per client address: forgot-password requests an hour; more answer 429 (DECISIONS "Forgotten password"). */
    FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: limit(10),
    /** Per account (e-mail): reset mails an hour; further requests answer 202 alike and mail nothing. */
    RESET_MAILS_PER_ACCOUNT_PER_HOUR: limit(3),
    /** Live push streams (room and room-list SSE) one client address may hold open on this replica. */
    PUSH_STREAMS_PER_ADDRESS: limit(20),
    /**
     * Live push streams this replica holds at once, every address together; more answer 503 with
     * Retry-After (the web app keeps polling). A stream keeps about 45 kB, so the chart's 384 MiB
     * holds 4,000 beside the rest; raise both together.
     */
    PUSH_STREAMS_PER_REPLICA: limit(4000),
    /**
     * Bytes one push stream may owe its client once the kernel's socket buffer is full (held by
     * Node, or room-list changes waiting); more and the stream is destroyed (the client reconnects).
     * Above the largest frame (a room of 250 moves, about 25 kB).
     */
    PUSH_BUFFER_BYTES_PER_STREAM: limit(128 * 1024),
    /** Bytes every push stream of this replica may owe together; over it, the biggest debtors are destroyed. */
    PUSH_BUFFER_BYTES_PER_REPLICA: limit(64 * 1024 * 1024),
    /** Seconds a push stream's client may read nothing while bytes wait for it; then it is destroyed. */
    PUSH_STALL_TIMEOUT_S: limit(30),
    /** The NATS KV bucket the counting limits share with rooms (the same value in both). */
    ...limitsBucketEnv,
    /**
     * The public key of auth's ES256 token signing key pair (PEM, or JWT_PUBLIC_KEY_FILE): each
     * replica checks tokens itself and cannot sign any.
     */
    JWT_PUBLIC_KEY: ecKeyPem('public'),
    /** The `iss` claim required (auth's JWT_ISSUER). */
    JWT_ISSUER: z.string().min(1).default('oasis198-auth'),
  })
  // Trusting a published key would let anyone with its private half sign tokens.
  .superRefine(refusePublishedSigningKeys('JWT_PUBLIC_KEY'));

const RPC_TIMEOUT_MS = 5000;
/** Above the longest leader election measured after a node's crash (7.6 s), with room to answer. */
const CLUSTER_RPC_TIMEOUT_MS = 12_000;

/** RPC_TIMEOUT_MS, or its default for the NATS the gateway runs on. */
export const rpcTimeoutMs = (config: Pick<GatewayConfig, 'RPC_TIMEOUT_MS' | 'NATS_STREAM_REPLICAS'>) =>
  config.RPC_TIMEOUT_MS ?? (config.NATS_STREAM_REPLICAS > 1 ? CLUSTER_RPC_TIMEOUT_MS : RPC_TIMEOUT_MS);

export type GatewayConfig = z.infer<typeof gatewayEnv>;

const TRUST_PROXY_MESSAGE =
  "must be a hop count (1: the ingress controller in front of the gateway) or the proxies' addresses or CIDRs, comma-separated; never true";
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Express takes it: a hop count, or the trusted addresses, CIDRs and named ranges. */
function parseTrustProxy(value: string, ctx: z.RefinementCtx): number | string[] {
  const trimmed = value.trim();
  if (/^\d{1,2}$/.test(trimmed)) return Number(trimmed);
  const entries = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!entries.length || !entries.every(isProxyAddress)) {
    ctx.addIssue({ code: 'custom', message: TRUST_PROXY_MESSAGE });
    return z.NEVER;
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** The local stack and the issue call the public port PORT; services call it HTTP_PORT. */
export function gatewayEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, HTTP_PORT: env['PORT'] ?? env['HTTP_PORT'] };
}
