import type { UserTokens } from '@oasis198/contracts';
import { isTokenVoid, type VerifiedToken } from '@oasis198/service-kit';

/**
 * The changes of a user's record in the token bucket (TokenRecords.user), as pure functions of
 * the stored record: each answers the record to store, or undefined when the stored one already
 * says as much (nothing to write). `until` is when the last token issued by now expires.
 */

/**
 * One more logged-out token. The record lists at most `max` of them, still unexpired; the oldest
 * beyond that become `loggedOutThrough`, which voids them and every token of the user issued at or
 * before them (docs/adr/0013), so a record stays small however often its user logs in and out.
 */
export function withLogout(
  stored: UserTokens | undefined,
  token: Pick<VerifiedToken, 'jti' | 'issuedAt'>,
  { now, ttlMs, max }: { now: number; ttlMs: number; max: number },
): UserTokens | undefined {
  const record = stored ?? { until: 0 };
  if (isTokenVoid(record, token)) return undefined;
  const listed = [...(record.loggedOut ?? []), { jti: token.jti, iat: token.issuedAt }]
    .filter((entry) => entry.iat > now - ttlMs) // older ones have expired anyway
    .sort((a, b) => a.iat - b.iat);
  const overflow = listed.splice(0, Math.max(0, listed.length - max));
  const through = Math.max(record.loggedOutThrough ?? -Infinity, ...overflow.map((entry) => entry.iat));
  return {
    ...record,
    loggedOut: listed.filter((entry) => !(entry.iat <= through)),
    ...(Number.isFinite(through) && { loggedOutThrough: through }),
    until: Math.max(record.until, now + ttlMs),
  };
}

/**
 * Every token issued before `at` (Unix ms) is void but `keep`: a password change (the caller's
 * token is kept) or a deletion under way (none is). A later such change already stored wins.
 */
export function withRevokedBefore(
  stored: UserTokens | undefined,
  at: number,
  keep: string | undefined,
  { now, ttlMs }: { now: number; ttlMs: number },
): UserTokens | undefined {
  const record = stored ?? { until: 0 };
  if (record.deleted || (record.revokedBefore ?? -Infinity) >= at) return undefined;
  const { keep: _replaced, ...rest } = record;
  // Listed logouts issued before `at` are void anyway, but the kept token's.
  const loggedOut = record.loggedOut?.filter((entry) => entry.iat >= at || entry.jti === keep);
  return {
    ...rest,
    revokedBefore: at,
    ...(keep !== undefined && { keep }),
    ...(loggedOut && { loggedOut }),
    until: Math.max(record.until, now + ttlMs),
  };
}

/** The account is deleted: every token of it is void, whenever it was issued. */
export function withDeletion(
  stored: UserTokens | undefined,
  { now, ttlMs }: { now: number; ttlMs: number },
): UserTokens | undefined {
  return stored?.deleted ? undefined : { deleted: true, until: now + ttlMs };
}
