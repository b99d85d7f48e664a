import { AppError, COMMON_MESSAGES, rateLimitedMessage } from '@oasis198/contracts';
import { LRUCache } from 'lru-cache';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RetryLaterError } from '../errors';
import {
  decodeWindow,
  encodeWindow,
  type LimitRule,
  planRefund,
  planReserve,
  planReset,
  type WindowState,
} from './fixed-window';
import {
  type BucketBounds,
  KvStore,
  MemoryStore,
  StoreFullError,
  type VersionedStore,
} from './versioned-store';

/** The outcome of reserving one attempt. */
export interface Reservation {
  allowed: boolean;
  /** Attempts counted in the key's window, this one included when allowed. */
  count: number;
  /** When refused: how long until the window ends. */
  retryAfterMs: number;
  /** The key as given, and the end of the window the attempt was counted in (for a refund). */
  key: string;
  windowEndsAt: number;
}

export interface SharedLimitOptions {
  now?: () => number;
  /** Keys whose last revision this replica remembers (the first write's guess). */
  cacheSize?: number;
  /** Lost compare-and-set races before giving up with 503. */
  maxAttempts?: number;
  /** Where a store failure is logged (the caller gets 503). */
  logger?: Logger;
  /**
   * The limits (by name) that count in this replica's memory a key the shared store has no room
   * for, instead of answering 503: those that only pace a user's writes, which a full store must
   * not stop. Every other limit answers 503 for such a key.
   */
  localWhenFull?: readonly string[];
  /** Keys a limit counts in memory at most while the store is full (the least recently used go). */
  localKeys?: number;
  /** openSharedLimits: the bucket's max_bytes and max_msg_size. */
  bucket?: BucketBounds;
}

/** What a limit that fails closed answers for a key the full store has no room for. */
export const LIMITS_FULL_MESSAGE =
  'This cannot be checked right now because limit storage is full. Please try again later.';

interface Known {
  revision: number;
  state: WindowState | null;
  /** When the store may drop the value this replica wrote (the write's TTL); unknown for a read. */
  goneAt?: number;
}

/** A decision on a key's state: what to write (null: nothing) and what to answer. */
type Decide<R> = (state: WindowState | null, now: number) => { next: WindowState | null; result: R };

const ABSENT: Known = { revision: 0, state: null };
const KEY_TOKEN = /^[-\w]+$/;

/**
 * A fixed-window limit whose counts live in a store every replica shares (NATS KV), so N replicas
 * together allow what one would. Every change is a compare-and-set on the key's revision; a lost
 * race reads the key again and decides again.
 *
 * Cost: this replica remembers each key's last revision and first writes with it (or, for a key
 * it has never seen, as if the key held nothing), so an allowed attempt is one round trip in the
 * common case. Only a write can come of a decision made on the remembered state: a refusal, or
 * nothing to do, is decided again on the state as stored, since another replica may have reset
 * or refunded meanwhile.
 */
export class SharedLimit {
  private readonly known: LRUCache<string, Known>;
  private readonly now: () => number;
  private readonly maxAttempts: number;
  private readonly logger?: Logger;
  /** Where keys the full store has no room for are counted, for a limit that counts locally then. */
  private readonly local?: SharedLimit;
  private fullLoggedAt = -Infinity;

  constructor(
    private readonly store: VersionedStore,
    readonly name: string,
    readonly rule: LimitRule,
    options: SharedLimitOptions = {},
  ) {
    if (!KEY_TOKEN.test(name)) throw new Error(`limit name ${name} must be letters, digits, '-' or '_'`);
    if (!(rule.max >= 1 && rule.windowMs >= 1))
      throw new Error(`limit ${name} needs max >= 1 and windowMs >= 1`);
    this.now = options.now ?? Date.now;
    this.known = new LRUCache({ max: options.cacheSize ?? 10_000 });
    this.maxAttempts = options.maxAttempts ?? 50;
    this.logger = options.logger;
    if (options.localWhenFull?.includes(name)) {
      const keys = options.localKeys ?? 10_000;
      this.local = new SharedLimit(new MemoryStore({ maxKeys: keys }), name, rule, { now: this.now });
    }
  }

  /** Counts one attempt of `key` unless its window is full (then nothing is counted). */
  reserve(key: string): Promise<Reservation> {
    return this.mutate<Reservation>(key, (state, now) => {
      const plan = planReserve(state, this.rule, now);
      return plan.allowed
        ? {
            next: plan.next,
            result: {
              allowed: true,
              count: plan.next.count,
              retryAfterMs: 0,
              key,
              windowEndsAt: plan.next.endsAt,
            },
          }
        : {
            next: null,
            result: {
              allowed: false,
              count: plan.count,
              retryAfterMs: plan.retryAfterMs,
              key,
              windowEndsAt: plan.endsAt,
            },
          };
    });
  }

  /** Gives back an allowed attempt (one that turned out not to count), in its own window only. */
  async refund(reservation: Reservation): Promise<void> {
    if (!reservation.allowed) return;
    await this.mutate(reservation.key, (state, now) => ({
      next: planRefund(state, reservation.windowEndsAt, now),
      result: undefined,
    }));
  }

  /** Forgets every attempt of `key`. */
  async reset(key: string): Promise<void> {
    await this.mutate(key, (state, now) => ({ next: planReset(state, now), result: undefined }));
  }

  private async mutate<R>(key: string, decide: Decide<R>): Promise<R> {
    const storeKey = this.storeKey(key);
    try {
      let known = this.known.get(storeKey) ?? ABSENT;
      // Past its TTL the key is most likely gone: writing as if it held nothing is then one round
      // trip instead of a lost race, a read and a write; a wrong guess costs what that did.
      if (known.goneAt !== undefined && this.now() >= known.goneAt) known = ABSENT;
      let stored = false;
      for (let lost = 0; ;) {
        const { next, result } = decide(known.state, this.now());
        if (!next) {
          if (stored) return result;
          known = await this.read(storeKey);
          stored = true;
          continue;
        }
        // The key may go when its window ends: a window over counts as none.
        const ttlMs = next.endsAt - this.now();
        const revision = await this.store.write(storeKey, encodeWindow(next), known.revision, ttlMs);
        if (revision !== null) {
          this.known.set(storeKey, { revision, state: next, goneAt: this.now() + ttlMs });
          return result;
        }
        lost += 1;
        if (lost >= this.maxAttempts) {
          this.logger?.warn({ limit: this.name, races: lost }, 'limit key too contended; refused');
          throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
        }
        // Replicas racing for one key: a short random pause spreads their next tries.
        if (lost > 1) await sleep(Math.random() * Math.min(20, 2 * lost));
        known = await this.read(storeKey);
        stored = true;
      }
    } catch (error) {
      this.known.delete(storeKey);
      if (error instanceof AppError) throw error;
      if (error instanceof StoreFullError) return this.whenFull(key, decide);
      // A limit that cannot be checked does not let the attempt through.
      this.logger?.warn({ err: error, limit: this.name }, 'limit store failed');
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
  }

  /**
   * The store has no room for this key (keys it holds still change in place). A pacing limit
   * counts the key in this replica's memory, so it still holds per replica; any other limit
   * refuses, since it guards against guessing, which a flood that fills the store must not unlock.
   */
  private whenFull<R>(key: string, decide: Decide<R>): Promise<R> {
    // Once a minute per limit: a flood that fills the store would otherwise flood the log too.
    if (this.now() - this.fullLoggedAt >= 60_000) {
      this.fullLoggedAt = this.now();
      this.logger?.error(
        { limit: this.name, countsLocally: !!this.local },
        this.local
          ? 'limit store full: new keys count on this replica only'
          : 'limit store full: new keys refused (503)',
      );
    }
    if (this.local) return this.local.mutate(key, decide);
    throw new AppError('UNAVAILABLE', LIMITS_FULL_MESSAGE);
  }

  private async read(storeKey: string): Promise<Known> {
    const entry = await this.store.read(storeKey);
    const known = { revision: entry.revision, state: decodeWindow(entry.value) };
    this.known.set(storeKey, known);
    return known;
  }

  /** `<name>.<sha-256 of the key>`: any text (e-mails, IPv6 addresses) becomes a valid KV key, and none is stored in clear. */
  private storeKey(key: string): string {
    return `${this.name}.${createHash('sha256').update(key).digest('base64url')}`;
  }
}

/** The 429 for a refused reservation: Retry-After = the rest of its window, and a message saying so. */
export function rateLimited(retryAfterMs: number): RetryLaterError {
  const retryAfterS = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new RetryLaterError('RATE_LIMITED', rateLimitedMessage(retryAfterS), retryAfterS);
}

/**
 * Opens the limits of one service in one KV bucket whose TTL is the longest window, so a key
 * lives as long as its window can and then disappears.
 */
export async function openSharedLimits<N extends string>(
  nc: NatsConnection,
  bucket: string,
  rules: Record<N, LimitRule>,
  options: SharedLimitOptions = {},
): Promise<Record<N, SharedLimit>> {
  const ttlMs = Math.max(...Object.values<LimitRule>(rules).map((rule) => rule.windowMs));
  return sharedLimitsOn(await KvStore.open(nc, bucket, ttlMs, options.bucket), rules, options);
}

/** The limits, by name, on one store (openSharedLimits: the KV bucket; unit tests: a MemoryStore). */
export function sharedLimitsOn<N extends string>(
  store: VersionedStore,
  rules: Record<N, LimitRule>,
  options: SharedLimitOptions = {},
): Record<N, SharedLimit> {
  const entries = Object.entries(rules) as Array<[N, LimitRule]>;
  return Object.fromEntries(
    entries.map(([name, rule]) => [name, new SharedLimit(store, name, rule, options)]),
  ) as Record<N, SharedLimit>;
}
