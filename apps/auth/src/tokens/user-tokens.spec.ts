import { type UserTokens, userTokensSchema } from '@oasis198/contracts';
import { isTokenVoid } from '@oasis198/service-kit';
import { withDeletion, withLogout, withRevokedBefore } from './user-tokens';

const ttlMs = 7 * 24 * 3600 * 1000;
const now = 1_800_000_000_000;
const token = (jti: string, issuedAt: number) => ({ jti, issuedAt });

describe("a user's record in the token bucket", () => {
  it('stays bounded however often the user logs in and out, and every logged-out token stays void', () => {
    let record: UserTokens | undefined;
    const loggedOut: ReturnType<typeof token>[] = [];
    for (let i = 0; i < 10_000; i++) {
      const t = token(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, now + i * 10);
      record = withLogout(record, t, { now: t.issuedAt + 5, ttlMs, max: 16 }) ?? record;
      loggedOut.push(t);
    }
    expect(userTokensSchema.parse(record)).toEqual(record);
    expect(record?.loggedOut).toHaveLength(16);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(1200);
    expect(loggedOut.filter((t) => !isTokenVoid(record, t))).toEqual([]);
    // A session that logged in after the last folded logout keeps working.
    expect(isTokenVoid(record, token('other-device', now + 9_990 * 10 + 1))).toBe(false);
  });

  it('voids exactly the logged-out token while the list has room, and forgets expired entries', () => {
    const first = withLogout(undefined, token('a', now), { now, ttlMs, max: 16 });
    expect(isTokenVoid(first, token('a', now))).toBe(true);
    expect(isTokenVoid(first, token('b', now - 1))).toBe(false);
    expect(withLogout(first, token('a', now), { now, ttlMs, max: 16 })).toBeUndefined(); // nothing new
    const later = withLogout(first, token('c', now + ttlMs), { now: now + ttlMs + 1, ttlMs, max: 16 });
    expect(later?.loggedOut).toEqual([{ jti: 'c', iat: now + ttlMs }]);
  });

  it('after a password change voids older tokens but the kept one, and not tokens issued after it', () => {
    const record = withRevokedBefore(undefined, now, 'kept', { now, ttlMs });
    expect(isTokenVoid(record, token('old', now - 1))).toBe(true);
    expect(isTokenVoid(record, token('kept', now - 60_000))).toBe(false);
    expect(isTokenVoid(record, token('fresh', now + 1))).toBe(false);
    // An earlier change arriving late changes nothing; a later one moves the cut and the kept token.
    expect(withRevokedBefore(record, now - 5, 'other', { now, ttlMs })).toBeUndefined();
    const again = withRevokedBefore(record, now + 10, 'fresh', { now, ttlMs });
    expect(isTokenVoid(again, token('kept', now - 60_000))).toBe(true);
    expect(isTokenVoid(again, token('fresh', now + 1))).toBe(false);
    // The kept token can still log out.
    const out = withLogout(again, token('fresh', now + 1), { now, ttlMs, max: 16 });
    expect(isTokenVoid(out, token('fresh', now + 1))).toBe(true);
  });

  it('after a deletion voids every token, and nothing undoes that', () => {
    const deleted = withDeletion(withRevokedBefore(undefined, now, undefined, { now, ttlMs }), {
      now,
      ttlMs,
    });
    expect(isTokenVoid(deleted, token('later', now + 1000))).toBe(true);
    expect(withRevokedBefore(deleted, now + 5, 'x', { now, ttlMs })).toBeUndefined();
    expect(withDeletion(deleted, { now, ttlMs })).toBeUndefined();
  });
});
