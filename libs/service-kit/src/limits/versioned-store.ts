import { type KV, type NatsConnection, nanos } from 'nats';
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
  /** Writes if the key is still at `expected` (0: holds nothing); the new revision, or null if it was not. */
  write(key: string, value: Uint8Array, expected: number): Promise<number | null>;
}

/** JetStream's answer to a write whose expected last sequence of the subject does not match. */
const WRONG_LAST_SEQUENCE = 10071;

export function isWrongRevision(error: unknown): boolean {
  const e = error as { api_error?: { err_code?: number }; message?: unknown } | null;
  return (
    e?.api_error?.err_code === WRONG_LAST_SEQUENCE ||
    (typeof e?.message === 'string' && e.message.includes('wrong last sequence'))
  );
}

/** A NATS JetStream KV bucket: one subject per key, history 1, writes guarded by the subject's last sequence. */
export class KvStore implements VersionedStore {
  constructor(private readonly kv: KV) {}

  /**
   * Opens (creating if missing) a bucket whose values live `ttlMs` after their last write, so
   * keys nobody touches disappear. An existing bucket keeps its settings, except that a TTL
   * shorter than `ttlMs` is raised (a window must never outlive its key).
   */
  static async open(nc: NatsConnection, bucket: string, ttlMs: number): Promise<KvStore> {
    const { kv } = await openKvBucket(nc, bucket, { history: 1, ttl: ttlMs }, ({ max_age }) =>
      max_age > 0 && max_age < nanos(ttlMs) ? { max_age: nanos(ttlMs) } : undefined,
    );
    return new KvStore(kv);
  }

  async read(key: string): Promise<VersionedEntry> {
    const entry = await this.kv.get(key);
    if (!entry) return { revision: 0, value: null };
    return { revision: entry.revision, value: entry.operation === 'PUT' ? entry.value : null };
  }

  async write(key: string, value: Uint8Array, expected: number): Promise<number | null> {
    try {
      return await this.kv.put(key, value, { previousSeq: expected });
    } catch (error) {
      if (isWrongRevision(error)) return null;
      throw error;
    }
  }
}

/** The same contract in memory (one process): for unit tests of what is built on a store. */
export class MemoryStore implements VersionedStore {
  private readonly entries = new Map<string, { revision: number; value: Uint8Array }>();
  private sequence = 0;

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
