import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import { RetryLaterError } from '../errors';
import { LIMITS_FULL_MESSAGE, rateLimited, SharedLimit } from './shared-limit';
import { MemoryStore, StoreFullError, type VersionedEntry, type VersionedStore } from './versioned-store';

/** A store that counts round trips and can be made to fail. */
class CountingStore implements VersionedStore {
  reads = 0;
  writes = 0;
  failing = false;
  readonly keys: string[] = [];

  constructor(private readonly inner: VersionedStore = new MemoryStore()) {}

  async read(key: string): Promise<VersionedEntry> {
    this.reads++;
    if (this.failing) throw new Error('NATS down');
    return this.inner.read(key);
  }

  async write(key: string, value: Uint8Array, expected: number, ttlMs?: number): Promise<number | null> {
    this.writes++;
    this.keys.push(key);
    if (this.failing) throw new Error('NATS down');
    return this.inner.write(key, value, expected, ttlMs);
  }
}

/** A store whose values go once their TTL is over, as NATS KV's do: the key then holds nothing. */
class ExpiringStore implements VersionedStore {
  /** Keeps values past their TTL, as a server whose expiry sweep has not come yet. */
  sweepsLate = false;
  private readonly entries = new Map<string, VersionedEntry & { goneAt: number }>();
  private sequence = 0;

  constructor(private readonly now: () => number) {}

  private live(key: string) {
    const entry = this.entries.get(key);
    if (entry && entry.goneAt <= this.now() && !this.sweepsLate) this.entries.delete(key);
    return this.entries.get(key);
  }

  async read(key: string): Promise<VersionedEntry> {
    const entry = this.live(key);
    return entry ? { revision: entry.revision, value: entry.value } : { revision: 0, value: null };
  }

  async write(key: string, value: Uint8Array, expected: number, ttlMs = Infinity): Promise<number | null> {
    if ((this.live(key)?.revision ?? 0) !== expected) return null;
    const revision = ++this.sequence;
    this.entries.set(key, { revision, value, goneAt: this.now() + ttlMs });
    return revision;
  }
}

describe('SharedLimit', () => {
  let now = 1_000_000;
  const clock = () => now;
  const rule = { max: 3, windowMs: 60_000 };

  beforeEach(() => {
    now = 1_000_000;
  });

  it('allows max attempts per key in a window, then refuses with the time left, then allows again', async () => {
    const limit = new SharedLimit(new MemoryStore(), 'logins', rule, { now: clock });
    for (let i = 1; i <= 3; i++) {
      expect(await limit.reserve('a@x.com')).toMatchObject({ allowed: true, count: i });
    }
    now += 15_000;
    expect(await limit.reserve('a@x.com')).toMatchObject({ allowed: false, count: 3, retryAfterMs: 45_000 });
    expect(await limit.reserve('b@x.com')).toMatchObject({ allowed: true, count: 1 });
    now += 45_000;
    expect(await limit.reserve('a@x.com')).toMatchObject({ allowed: true, count: 1 });
  });

  it('holds across replicas: 40 parallel reservations on two instances over one store allow exactly max', async () => {
    const store = new MemoryStore();
    const replicas = [0, 1].map(() => new SharedLimit(store, 'logins', { max: 10, windowMs: 60_000 }));
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => replicas[i % 2]?.reserve('victim@x.com')),
    );
    expect(results.filter((r) => r?.allowed)).toHaveLength(10);
    expect(
      results
        .filter((r) => r?.allowed)
        .map((r) => r?.count)
        .sort((a, b) => (a ?? 0) - (b ?? 0)),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('refunds an attempt into its own window only', async () => {
    const limit = new SharedLimit(new MemoryStore(), 'codes', rule, { now: clock });
    const first = await limit.reserve('k');
    await limit.reserve('k');
    await limit.reserve('k');
    await limit.refund(first);
    expect(await limit.reserve('k')).toMatchObject({ allowed: true, count: 3 });
    // A refund after its window ended does not touch the next window.
    now += 60_000;
    const fresh = await limit.reserve('k');
    await limit.refund(first);
    expect(await limit.reserve('k')).toMatchObject({ allowed: true, count: fresh.count + 1 });
    // Refusals have nothing to give back.
    await limit.refund({ ...first, allowed: false });
  });

  it("resets a key's count, also when another replica reads it", async () => {
    const store = new MemoryStore();
    const [one, two] = [0, 1].map(() => new SharedLimit(store, 'codes', rule, { now: clock }));
    for (let i = 0; i < 3; i++) await one?.reserve('k');
    expect(await two?.reserve('k')).toMatchObject({ allowed: false });
    await one?.reset('k');
    // `two` remembers a full window; a refusal is never decided on what it remembers.
    expect(await two?.reserve('k')).toMatchObject({ allowed: true, count: 1 });
  });

  it('costs one round trip per allowed attempt on a key this replica has seen, and one for a new key', async () => {
    const store = new CountingStore();
    const limit = new SharedLimit(store, 'edits', { max: 100, windowMs: 1000 }, { now: clock });
    await limit.reserve('user-1');
    expect({ reads: store.reads, writes: store.writes }).toEqual({ reads: 0, writes: 1 });
    for (let i = 0; i < 5; i++) await limit.reserve('user-1');
    expect({ reads: store.reads, writes: store.writes }).toEqual({ reads: 0, writes: 6 });
    // Another replica wrote meanwhile: a lost race, one read, one more write.
    await new SharedLimit(store, 'edits', { max: 100, windowMs: 1000 }, { now: clock }).reset('user-1');
    store.reads = 0;
    store.writes = 0;
    expect(await limit.reserve('user-1')).toMatchObject({ allowed: true, count: 1 });
    expect({ reads: store.reads, writes: store.writes }).toEqual({ reads: 1, writes: 2 });
  });

  it('costs one round trip for a key whose TTL has passed since this replica wrote it', async () => {
    const expiring = new ExpiringStore(clock);
    const store = new CountingStore(expiring);
    const limit = new SharedLimit(store, 'edits', { max: 10, windowMs: 1000 }, { now: clock });
    expect(await limit.reserve('user-1')).toMatchObject({ allowed: true, count: 1 });
    // A player's next move comes after the 1 s window and its key are gone.
    for (let i = 0; i < 3; i++) {
      now += 2000;
      [store.reads, store.writes] = [0, 0];
      expect(await limit.reserve('user-1')).toMatchObject({ allowed: true, count: 1 });
      expect({ reads: store.reads, writes: store.writes }).toEqual({ reads: 0, writes: 1 });
    }
    // The store drops it late: a lost race, a read and a write, and the count still holds.
    expiring.sweepsLate = true;
    now += 2000;
    [store.reads, store.writes] = [0, 0];
    expect(await limit.reserve('user-1')).toMatchObject({ allowed: true, count: 1 });
    expect({ reads: store.reads, writes: store.writes }).toEqual({ reads: 1, writes: 2 });
    expect(await limit.reserve('user-1')).toMatchObject({ allowed: true, count: 2 });
  });

  it('remembers the revisions of at most cacheSize keys, forgetting the least recently used', async () => {
    const store = new CountingStore();
    const limit = new SharedLimit(
      store,
      'edits',
      { max: 100, windowMs: 60_000 },
      { now: clock, cacheSize: 2 },
    );
    for (const key of ['a', 'b', 'a', 'c']) await limit.reserve(key);
    const cost = async (key: string) => {
      store.reads = 0;
      store.writes = 0;
      await limit.reserve(key);
      return { key, reads: store.reads, writes: store.writes };
    };
    // 'a' and 'c' are remembered: one write each. 'b' was forgotten: its guess fails, a read, a write.
    expect(await cost('a')).toEqual({ key: 'a', reads: 0, writes: 1 });
    expect(await cost('c')).toEqual({ key: 'c', reads: 0, writes: 1 });
    expect(await cost('b')).toEqual({ key: 'b', reads: 1, writes: 2 });
  });

  it('keeps keys apart by name and never stores a key in clear', async () => {
    const store = new CountingStore();
    const written = store.keys;
    const logins = new SharedLimit(store, 'logins', rule);
    const codes = new SharedLimit(store, 'codes', rule);
    await logins.reserve('someone@example.com');
    await codes.reserve('someone@example.com');
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/^logins\.[-\w]{43}$/);
    expect(written[1]).toMatch(/^codes\.[-\w]{43}$/);
    expect(written.join()).not.toContain('example');
  });

  it('answers 503 when the store fails or a key stays too contended, never letting the attempt through', async () => {
    const store = new CountingStore();
    store.failing = true;
    const limit = new SharedLimit(store, 'logins', rule);
    await expect(limit.reserve('k')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: COMMON_MESSAGES.unavailable,
    });
    const contended: VersionedStore = {
      read: async () => ({ revision: 1, value: null }),
      write: async () => null,
    };
    const stuck = new SharedLimit(contended, 'logins', rule, { maxAttempts: 3 });
    await expect(stuck.reserve('k')).rejects.toBeInstanceOf(AppError);
  });

  it('when the store is full, counts a new key of a pacing limit on this replica and refuses one of a guessing limit', async () => {
    // Full as JetStream is with discard NEW: a key it holds changes in place, a new one is refused.
    const inner = new MemoryStore();
    let full = false;
    const store: VersionedStore = {
      read: (key) => inner.read(key),
      write: async (key, value, expected) => {
        if (full && (await inner.read(key)).revision === 0)
          throw new StoreFullError(new Error('maximum bytes exceeded'));
        return inner.write(key, value, expected);
      },
    };
    const options = { now: clock, localWhenFull: ['edits'] };
    const edits = new SharedLimit(store, 'edits', rule, options);
    const logins = new SharedLimit(store, 'logins', rule, options);
    await edits.reserve('known');
    await logins.reserve('known');
    full = true;

    for (let i = 1; i <= 3; i++)
      expect(await edits.reserve('new-user')).toMatchObject({ allowed: true, count: i });
    expect(await edits.reserve('new-user')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    await expect(logins.reserve('new@x.com')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: LIMITS_FULL_MESSAGE,
    });
    // Keys the store holds are still counted there.
    expect(await edits.reserve('known')).toMatchObject({ allowed: true, count: 2 });
    expect(await logins.reserve('known')).toMatchObject({ allowed: true, count: 2 });
    // The local counts were never stored: with room again, the key starts afresh in the store.
    full = false;
    expect(await edits.reserve('new-user')).toMatchObject({ allowed: true, count: 1 });
  });

  it('refuses invalid names and rules', () => {
    expect(() => new SharedLimit(new MemoryStore(), 'a.b', rule)).toThrow(/name/);
    expect(() => new SharedLimit(new MemoryStore(), 'ok', { max: 0, windowMs: 1 })).toThrow(/max/);
  });
});

describe('rateLimited', () => {
  it('is a 429 whose Retry-After is the rest of the window in whole seconds, at least 1', () => {
    const error = rateLimited(44_001);
    expect(error).toBeInstanceOf(RetryLaterError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many attempts. Please try again in 45 seconds.',
      retryAfterS: 45,
    });
    expect(rateLimited(10)).toMatchObject({
      retryAfterS: 1,
      message: 'Too many attempts. Please try again in 1 second.',
    });
    // A 10-minute lock says so (it said "wait a minute" before).
    expect(rateLimited(600_000).message).toBe('Too many attempts. Please try again in 10 minutes.');
    expect(rateLimited(60_001).message).toBe('Too many attempts. Please try again in 2 minutes.');
  });
});
