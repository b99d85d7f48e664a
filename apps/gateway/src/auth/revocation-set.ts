import {
  type TokenRevoked,
  tokenRevokedSchema,
  type UserName,
  userNameSchema,
  type UserTokens,
  userTokensSchema,
} from '@oasis198/contracts';
import { isTokenVoid, type VerifiedToken } from '@oasis198/service-kit';
import type { z } from 'zod';

interface Stored<T> {
  revision: number;
  value: T;
}

/**
 * What the token bucket says (TokenRecords in libs/contracts), held in memory: per user, which of
 * their tokens are void (logouts, password change, deletion), and users' current names.
 * Entries are applied in revision order per key and forgotten once no token they concern can be
 * valid any more (`until`), so a check is a few map lookups.
 */
export class RevocationSet {
  /** Logged-out tokens under per-token keys, which a bucket may still hold (TokenRecords.token). */
  private readonly tokens = new Map<string, Stored<TokenRevoked>>();
  private readonly users = new Map<string, Stored<UserTokens>>();
  private readonly names = new Map<string, Stored<UserName>>();

  /**
   * Applies one bucket entry: its key, revision and JSON value (undefined: the key was deleted or
   * purged). Unknown keys and malformed values are ignored and reported as false.
   */
  apply(key: string, revision: number, value: unknown): boolean {
    const dot = key.indexOf('.');
    const kind = key.slice(0, dot);
    const id = key.slice(dot + 1);
    if (dot < 1 || !id) return false;
    switch (kind) {
      case 'token':
        return put(this.tokens, id, revision, value, tokenRevokedSchema);
      case 'user':
        return put(this.users, id, revision, value, userTokensSchema);
      case 'name':
        return put(this.names, id, revision, value, userNameSchema);
      default:
        return false;
    }
  }

  /** Whether a well-signed token was ended before its expiry: logged out, user deleted, old version. */
  refuses(claims: Pick<VerifiedToken, 'userId' | 'jti' | 'issuedAt' | 'tokenVersion'>): boolean {
    return this.tokens.has(claims.jti) || isTokenVoid(this.users.get(claims.userId)?.value, claims);
  }

  /** The user's name since a rename, if it happened during the lifetime of tokens still valid. */
  nameOf(userId: string): string | undefined {
    return this.names.get(userId)?.value.name;
  }

  /** Forgets entries whose tokens have all expired by `now` (Unix ms); the bucket ages them out too. */
  prune(now = Date.now()): number {
    let removed = 0;
    for (const map of [this.tokens, this.users, this.names] as Map<string, Stored<{ until: number }>>[]) {
      for (const [id, entry] of map) {
        if (entry.value.until < now) {
          map.delete(id);
          removed += 1;
        }
      }
    }
    return removed;
  }

  get size(): number {
    return this.tokens.size + this.users.size + this.names.size;
  }
}

function put<T>(
  map: Map<string, Stored<T>>,
  id: string,
  revision: number,
  value: unknown,
  schema: z.ZodType<T>,
): boolean {
  const known = map.get(id);
  if (known && known.revision >= revision) return true; // an older write, seen after a newer one
  if (value === undefined) {
    map.delete(id);
    return true;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return false;
  map.set(id, { revision, value: parsed.data });
  return true;
}
