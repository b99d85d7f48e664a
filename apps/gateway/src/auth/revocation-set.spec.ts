import { TokenRecords } from '@oasis198/contracts';
import { RevocationSet } from './revocation-set';

const later = Date.now() + 60_000;
const issued = later - 3_600_000;
const token = (over: Partial<{ userId: string; jti: string; issuedAt: number }> = {}) => ({
  userId: 'u1',
  jti: 'j1',
  issuedAt: issued,
  ...over,
});

describe('RevocationSet: the token bucket in a gateway replica', () => {
  it('refuses a logged-out token and no other', () => {
    const set = new RevocationSet();
    expect(
      set.apply(TokenRecords.user('u1'), 1, { loggedOut: [{ jti: 'j1', iat: issued }], until: later }),
    ).toBe(true);
    expect(set.refuses(token())).toBe(true);
    expect(set.refuses(token({ jti: 'j2' }))).toBe(false);
    expect(set.refuses(token({ userId: 'u2' }))).toBe(false);
  });

  it('refuses the tokens of logouts beyond the list: issued at or before loggedOutThrough', () => {
    const set = new RevocationSet();
    set.apply(TokenRecords.user('u1'), 1, { loggedOut: [], loggedOutThrough: issued, until: later });
    expect(set.refuses(token({ jti: 'older', issuedAt: issued - 1 }))).toBe(true);
    expect(set.refuses(token({ jti: 'same', issuedAt: issued }))).toBe(true);
    expect(set.refuses(token({ jti: 'newer', issuedAt: issued + 1 }))).toBe(false);
  });

  it('after a password change refuses older tokens but the kept one; after a deletion every token', () => {
    const set = new RevocationSet();
    set.apply(TokenRecords.user('u1'), 3, { revokedBefore: issued, keep: 'kept', until: later });
    expect(set.refuses(token({ jti: 'old', issuedAt: issued - 1 }))).toBe(true);
    expect(set.refuses(token({ jti: 'kept', issuedAt: issued - 1 }))).toBe(false);
    expect(set.refuses(token({ jti: 'new', issuedAt: issued }))).toBe(false);
    expect(set.refuses(token({ userId: 'u2', issuedAt: 0 }))).toBe(false);
    set.apply(TokenRecords.user('u1'), 4, { deleted: true, until: later });
    expect(set.refuses(token({ jti: 'kept', issuedAt: issued - 1 }))).toBe(true);
    expect(set.refuses(token({ jti: 'new', issuedAt: issued + 1000 }))).toBe(true);
  });

  it('honours the records of the per-token format a bucket may still hold, for the tokens they concern', () => {
    const set = new RevocationSet();
    expect(set.apply(TokenRecords.token('j1'), 1, { until: later })).toBe(true);
    expect(set.apply(TokenRecords.user('u1'), 2, { tokenVersion: 2, keep: 'kept', until: later })).toBe(true);
    expect(set.refuses(token({ jti: 'j1' }))).toBe(true);
    // Tokens with a version older than the record's are void, but the kept one...
    expect(set.refuses({ ...token({ jti: 'old' }), tokenVersion: 1 })).toBe(true);
    expect(set.refuses({ ...token({ jti: 'kept' }), tokenVersion: 1 })).toBe(false);
    expect(set.refuses({ ...token({ jti: 'current' }), tokenVersion: 2 })).toBe(false);
    // ...and tokens without a version were issued after the change.
    expect(set.refuses(token({ jti: 'fresh' }))).toBe(false);
  });

  it('keeps the newest revision of a key, whatever order they arrive in (watch and direct read)', () => {
    const set = new RevocationSet();
    set.apply(TokenRecords.name('u1'), 7, { name: 'second', at: 2, until: later });
    set.apply(TokenRecords.name('u1'), 5, { name: 'first', at: 1, until: later });
    expect(set.nameOf('u1')).toBe('second');
    set.apply(TokenRecords.name('u1'), 9, undefined); // purged
    expect(set.nameOf('u1')).toBeUndefined();
  });

  it('ignores unknown keys and malformed values', () => {
    const set = new RevocationSet();
    expect(set.apply('other.x', 1, { until: later })).toBe(false);
    expect(set.apply('token', 1, { until: later })).toBe(false);
    expect(set.apply(TokenRecords.user('u1'), 1, { revokedBefore: 'x', until: later })).toBe(false);
    expect(set.apply(TokenRecords.user('u1'), 1, { loggedOut: [{ jti: 1 }], until: later })).toBe(false);
    expect(set.apply(TokenRecords.name('u1'), 1, null)).toBe(false);
    expect(set.size).toBe(0);
  });

  it('forgets records once no token they concern can be valid', () => {
    const set = new RevocationSet();
    set.apply(TokenRecords.user('u0'), 1, { loggedOut: [{ jti: 'j1', iat: 1 }], until: 1000 });
    set.apply(TokenRecords.user('u1'), 2, { revokedBefore: 1, until: 5000 });
    expect(set.prune(2000)).toBe(1);
    expect(set.size).toBe(1);
    expect(set.prune(6000)).toBe(1);
    expect(set.size).toBe(0);
  });
});
