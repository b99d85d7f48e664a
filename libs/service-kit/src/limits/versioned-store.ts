import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DiscardPolicy, headers, type JetStreamClient, type KV, type NatsConnection, nanos } from 'nats';
import { withJetStreamRetry } from '../nats/jetstream-retry';
import { openKvBucket } from '../nats/kv-bucket';

/** A key's value and revision; revision 0 means the key holds nothing. */
export interface VersionedEntry {
  revision: number;
  value: Uint8Array | null;
}

/**
 * A key-value store with compare-and-set: the counting limits' only needs. NATS JetStream KV in
 * the services (every replica shares it); MemoryStore for tests of the logic above it.
 */
export interface VersionedStore {
  read(key: string): Promise<VersionedEntry>;
  /**
   * Writes if the key is still at `expected` (0: holds nothing); the new revision, or null if it
   * was not. `ttlMs`: the value may go that long after the write (a store may keep it longer).
   */
  write(key: string, value: Uint8Array, expected: number, ttlMs?: number): Promise<number | null>;
}

/** JetStream's answer to a write whose expected last sequence of the subject does not match. */
const WRONG_LAST_SEQUENCE = 10071;

/** A write refused because the store is full: nothing was written. */
export class StoreFullError extends Error {
  constructor(cause: unknown) {
    super('the store is full', { cause });
    this.name = 'StoreFullError';
  }
}

/** JetStream's refusal of a write the stream has no room for (discard NEW at max_bytes or max_msgs). */
export function isStoreFull(error: unknown): boolean {
  const e = error as { api_error?: { description?: unknown }; message?: unknown } | null;
  return /maximum (bytes|messages) exceeded/.test(
    `${String(e?.api_error?.description)} ${String(e?.message)}`,
  );
}

/** How large a limits bucket may grow: its stream's max_bytes and max_msg_size. */
export interface BucketBounds {
  maxBytes: number;
  maxValueSize: number;
  /** Copies JetStream keeps of the bucket (NATS_STREAM_REPLICAS); unset: 1 when created. */
  replicas?: number;
}

export function isWrongRevision(error: unknown): boolean {
  const e = error as { api_error?: { err_code?: number }; message?: unknown } | null;
  return (
    e?.api_error?.err_code === WRONG_LAST_SEQUENCE ||
    (typeof e?.message === 'string' && e.message.includes('wrong last sequence'))
  );
}

/** A NATS JetStream KV bucket: one subject per key, history 1, writes guarded by the subject's last sequence. */
export class KvStore implements VersionedStore {
  private readonly js: JetStreamClient;

  /** A write's `ttlMs` becomes the message's own TTL (open() lets the bucket take per-message TTLs). */
  private constructor(
    private readonly kv: KV,
    private readonly bucket: string,
    nc: NatsConnection,
  ) {
    this.js = nc.jetstream();
  }

  /**
   * Opens (creating if missing) a bucket whose values live `ttlMs` after their last write, so
   * keys nobody touches disappear. An existing bucket keeps its TTL unless it is shorter than
   * `ttlMs` (a window must never outlive its key); with `bounds`, its max_bytes and max_msg_size
   * are set to them, discarding new writes when full. Per-message TTLs are allowed, so each key
   * goes when its own window ends rather than after the longest window of the bucket.
   */
  static async open(
    nc: NatsConnection,
    bucket: string,
    ttlMs: number,
    bounds?: BucketBounds,
  ): Promise<KvStore> {
    const sizes = bounds && {
      max_bytes: bounds.maxBytes,
      maxValueSize: bounds.maxValueSize,
      ...(bounds.replicas === undefined ? {} : { replicas: bounds.replicas }),
    };
    const { kv } = await openKvBucket(nc, bucket, { history: 1, ttl: ttlMs, ...sizes }, (config) => {
      const changes: {
        max_age?: number;
        max_bytes?: number;
        max_msg_size?: number;
        discard?: DiscardPolicy;
        allow_msg_ttl?: boolean;
      } = {};
      if (config.max_age > 0 && config.max_age < nanos(ttlMs)) changes.max_age = nanos(ttlMs);
      if (!(config as { allow_msg_ttl?: boolean }).allow_msg_ttl) changes.allow_msg_ttl = true;
      if (bounds) {
        if (config.max_bytes !== bounds.maxBytes) changes.max_bytes = bounds.maxBytes;
        if (config.max_msg_size !== bounds.maxValueSize) changes.max_msg_size = bounds.maxValueSize;
        if (config.discard !== DiscardPolicy.New) changes.discard = DiscardPolicy.New;
      }
      return Object.keys(changes).length ? changes : undefined;
    });
    return new KvStore(kv, bucket, nc);
  }

  async read(key: string): Promise<VersionedEntry> {
    const entry = await withJetStreamRetry(() => this.kv.get(key));
    if (!entry) return { revision: 0, value: null };
    return { revision: entry.revision, value: entry.operation === 'PUT' ? entry.value : null };
  }

  /**
   * Retried through a leader election. Every attempt carries the same Nats-Msg-Id: one whose answer
   * was lost but which was stored makes the next attempt a duplicate (its revision), not a lost race.
   */
  async write(key: string, value: Uint8Array, expected: number, ttlMs?: number): Promise<number | null> {
    const { js, bucket } = this;
    const msgID = randomUUID();
    try {
      // kv.put sends neither a TTL nor a message id: the same publish, with both (a TTL of at least 1 s).
      const h = headers();
      h.set('Nats-Expected-Last-Subject-Sequence', String(expected));
      if (ttlMs !== undefined) h.set('Nats-TTL', `${Math.max(1, Math.ceil(ttlMs / 1000))}s`);
      const ack = await withJetStreamRetry(() =>
        js.publish(`$KV.${bucket}.${key}`, value, { headers: h, msgID }),
      );
      return ack.seq;
    } catch (error) {
      if (isWrongRevision(error)) return null;
      if (isStoreFull(error)) throw new StoreFullError(error);
      throw error;
    }
  }
}

/**
 * The same contract in memory (one process): for unit tests of what is built on a store, and for
 * the counts a replica keeps itself while the shared store is full (then bounded by `maxKeys`,
 * the least recently used key going first).
 */
export class MemoryStore implements VersionedStore {
  private readonly entries:
    | Map<string, { revision: number; value: Uint8Array }>
    | LRUCache<string, { revision: number; value: Uint8Array }>;
  private sequence = 0;

  constructor(options: { maxKeys?: number } = {}) {
    this.entries = options.maxKeys ? new LRUCache({ max: options.maxKeys }) : new Map();
  }

  async read(key: string): Promise<VersionedEntry> {
    const entry = this.entries.get(key);
    return entry ? { revision: entry.revision, value: entry.value } : { revision: 0, value: null };
  }

  async write(key: string, value: Uint8Array, expected: number): Promise<number | null> {
    if ((this.entries.get(key)?.revision ?? 0) !== expected) return null;
    const revision = ++this.sequence;
    this.entries.set(key, { revision, value });
    return revision;
  }
}
