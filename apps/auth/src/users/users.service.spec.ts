import {
  AppError,
  COMMON_MESSAGES,
  EventIds,
  EventTypes,
  type TokenClaims,
  USER_MESSAGES,
  type UserTokens,
} from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { testSigningKeys } from '@oasis198/testing';
import { createLogger, isTokenVoid, type OutboxDocument, pendingEvents } from '@oasis198/service-kit';
import type { PasswordHasher } from '../passwords/password-hasher';
import { PasswordPolicy } from '../passwords/password-policy';
import type { RevocationsService } from '../tokens/revocations.service';
import { TokensService } from '../tokens/tokens.service';
import { withDeletion, withLogout, withRevokedBefore } from '../tokens/user-tokens';
import { SessionsService } from './sessions.service';
import { InMemoryUsersRepository } from './users.repository.fake';
import type { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** A hasher that is fast and obviously not the password: good enough to test the flow. */
class FakeHasher {
  nothingChecks = 0;
  inTurn<T>(work: () => Promise<T>) {
    return work();
  }
  async hash(password: string) {
    return `hashed:${password}`;
  }
  async verify(digest: string, password: string) {
    return digest === `hashed:${password}`;
  }
  async verifyNothing(): Promise<false> {
    this.nothingChecks += 1;
    return false;
  }
}

/** RevocationsService over a map instead of the token bucket, with the same records and rule. */
class FakeRevocations {
  readonly records = new Map<string, UserTokens>();
  readonly written: unknown[] = [];
  /** Makes the next writes fail as a full or unreachable bucket does. */
  failing = false;
  private readonly times = () => ({ now: Date.now(), ttlMs: 3600_000 });
  async revoke(token: { userId: string; jti: string; issuedAt: number }) {
    this.store(token.userId, withLogout(this.records.get(token.userId), token, { ...this.times(), max: 4 }));
    this.written.push({ token: token.jti });
  }
  async isRevoked(token: { userId: string; jti: string; issuedAt: number }) {
    return isTokenVoid(this.records.get(token.userId), token);
  }
  async revokeBefore(userId: string, at: number, keep?: string) {
    this.store(userId, withRevokedBefore(this.records.get(userId), at, keep, this.times()));
    this.written.push({ user: userId, revokedBefore: at, ...(keep && { keep }) });
  }
  async userDeleted(userId: string) {
    this.store(userId, withDeletion(this.records.get(userId), this.times()));
    this.written.push({ user: userId, deleted: true });
  }
  async renamed(userId: string, name: string) {
    if (this.failing) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    this.written.push({ name: userId, to: name });
  }
  private store(userId: string, record: UserTokens | undefined) {
    if (this.failing) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    if (record) this.records.set(userId, record);
  }
}

const config = {
  JWT_PRIVATE_KEY: testSigningKeys().privateKey,
  JWT_TTL_S: 3600,
  JWT_ISSUER: 'oasis198-auth',
  REAUTH_WINDOW_S: 600,
};
const valid = {
  name: 'alice1',
  email: 'Alice@Example.com',
  password: 'Zebra2Lamp',
  confirmedPassword: 'Zebra2Lamp',
};

/** ChangeNotices in memory: what was held, and what became of it. */
class FakeNotices {
  readonly held = new Map<string, { to: string; subject: string; state: 'held' | 'sent' | 'dropped' }>();
  async hold(message: { to: string; subject: string }) {
    const id = String(this.held.size + 1);
    this.held.set(id, { to: message.to, subject: message.subject, state: 'held' });
    return id;
  }
  async release(id: string) {
    this.mark(id, 'sent');
  }
  async drop(id: string) {
    this.mark(id, 'dropped');
  }
  private mark(id: string, state: 'sent' | 'dropped') {
    const notice = this.held.get(id);
    if (notice) notice.state = state;
  }
  in(state: 'held' | 'sent' | 'dropped') {
    return [...this.held.values()]
      .filter((n) => n.state === state)
      .map(({ to, subject }) => ({ to, subject }));
  }
}

function setup() {
  const repo = new InMemoryUsersRepository();
  const notices = new FakeNotices();
  const tokens = new TokensService(config);
  const revocations = new FakeRevocations();
  const hasher = new FakeHasher();
  const published: OutboxDocument[] = [];
  // Like OutboxRelay: records what it publishes, empties the outbox, removes a tombstone; refuses
  // with 503 while the stream counts as full.
  const stream = { full: false };
  const relay = {
    assertCanPublish: () => {
      if (stream.full) throw new AppError('UNAVAILABLE', 'event storage is full');
    },
    publishSoon: async (doc: OutboxDocument) => {
      published.push(doc);
      const id = String(doc._id);
      if (doc.tombstone) repo.users.delete(id);
      else Object.assign(repo.users.get(id) ?? {}, { outbox: {}, outboxAt: null });
    },
  };
  const users = new UsersService(
    repo as unknown as UsersRepository,
    tokens,
    revocations as unknown as RevocationsService,
    hasher as unknown as PasswordHasher,
    new PasswordPolicy(),
    relay,
    createLogger('auth-test', 'silent'),
    notices,
    { PUBLIC_WEB_URL: 'http://web.test' },
  );
  const sessions = new SessionsService(
    tokens,
    revocations as unknown as RevocationsService,
    repo as unknown as UsersRepository,
  );
  const callerOf = (token: string) => sessions.verify(token);
  return { repo, tokens, revocations, hasher, published, users, sessions, callerOf, stream, notices };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function firstOf<T>(list: readonly T[]): T {
  const [first] = list;
  if (first === undefined) throw new Error('nothing was published');
  return first;
}

async function expectError(promise: Promise<unknown>, code: string, message: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ code, message });
}

describe('UsersService', () => {
  describe('register', () => {
    it('stores a hash and the lower-case e-mail, writes user.registered with the record and publishes it', async () => {
      const { repo, users, published, callerOf } = setup();
      const user = await users.register(valid);
      expect(Object.keys(user).sort()).toEqual(['_id', 'name', 'token']);
      const stored = repo.users.get(user._id);
      expect(stored).toMatchObject({
        email: 'Alice@Example.com',
        emailKey: 'alice@example.com',
        passwordHash: 'hashed:Zebra2Lamp',
      });
      expect(published).toHaveLength(1);
      expect(pendingEvents(firstOf(published))).toEqual([
        expect.objectContaining({
          id: EventIds.userRegistered(user._id),
          type: EventTypes.userRegistered,
          data: { userId: user._id, name: 'alice1' },
        }),
      ]);
      expect(await callerOf(user.token)).toMatchObject({ userId: user._id, name: 'alice1' });
    });

    it('refuses a taken e-mail in any case with CONFLICT, also when a race gets there first', async () => {
      const { repo, users } = setup();
      await users.register(valid);
      await expectError(
        users.register({ ...valid, email: 'ALICE@example.COM' }),
        'CONFLICT',
        USER_MESSAGES.alreadyExists,
      );
      // The pre-check passes, then another registration of the e-mail lands before the insert.
      repo.beforeWrite = () => {
        repo.beforeWrite = undefined;
        const racer = { _id: 'racer', name: 'bobby1', email: 'bob@example.com', emailKey: 'bob@example.com' };
        void repo.create({ ...racer, passwordHash: 'x' }, []);
      };
      await expectError(
        users.register({ ...valid, name: 'carol1', email: 'Bob@Example.com' }),
        'CONFLICT',
        USER_MESSAGES.alreadyExists,
      );
      expect([...repo.users.values()].filter((u) => u.emailKey === 'bob@example.com')).toHaveLength(1);
    });

    it('refuses invalid fields with every SPEC message, and a common password', async () => {
      const { users } = setup();
      const error = await users
        .register({ name: 'x', email: 'y', password: 'z', confirmedPassword: 'w' })
        .catch((e) => e);
      expect(error).toMatchObject({
        code: 'VALIDATION',
        message: MESSAGES.username,
        details: {
          name: MESSAGES.username,
          email: MESSAGES.email,
          password: MESSAGES.password,
          confirmedPassword: MESSAGES.confirmedPassword,
        },
      });
      await expectError(
        users.register({ ...valid, password: 'Password1', confirmedPassword: 'Password1' }),
        'VALIDATION',
        USER_MESSAGES.commonPassword,
      );
    });
  });

  describe('login', () => {
    it('answers one message for an unknown e-mail and for a wrong password, and spends a hash check on both', async () => {
      const { users, hasher } = setup();
      await users.register(valid);
      await expectError(
        users.login({ email: 'nobody@example.com', password: 'Zebra2Lamp' }),
        'VALIDATION',
        USER_MESSAGES.badCredentials,
      );
      expect(hasher.nothingChecks).toBe(1);
      await expectError(
        users.login({ email: valid.email, password: 'Wrong2Lamp' }),
        'VALIDATION',
        USER_MESSAGES.badCredentials,
      );
      const ok = await users.login({ email: 'alice@EXAMPLE.com', password: 'Zebra2Lamp' });
      expect(ok.name).toBe('alice1');
    });

    it('validates e-mail and password by the SPEC rules first', async () => {
      const { users } = setup();
      await expectError(
        users.login({ email: { $gt: '' }, password: 'Zebra2Lamp' }),
        'VALIDATION',
        MESSAGES.email,
      );
      await expectError(
        users.login({ email: 'a@example.com', password: 'x' }),
        'VALIDATION',
        MESSAGES.password,
      );
    });
  });

  describe('edit', () => {
    it('renames with a user.renamed event and answers { user } without any token or hash', async () => {
      const { users, published, callerOf, revocations } = setup();
      const { token } = await users.register(valid);
      const caller = await callerOf(token);
      published.length = 0;
      const result = await users.edit(caller, { name: 'alice2' });
      expect(result).toEqual({ user: { _id: caller.userId, name: 'alice2', email: 'Alice@Example.com' } });
      expect(pendingEvents(firstOf(published)).map((e) => [e.type, e.data])).toEqual([
        [EventTypes.userRenamed, { userId: caller.userId, name: 'alice2' }],
      ]);
      // Gateways learn the new name (tokens carry the old one)...
      expect(revocations.written).toEqual([{ name: caller.userId, to: 'alice2' }]);
      // ...and the token keeps working and reports the current name.
      expect((await callerOf(token)).name).toBe('alice2');
    });

    it('changes the e-mail unless another account has it (any case); its own e-mail in another case is fine', async () => {
      const { users, callerOf } = setup();
      const alice = await callerOf((await users.register(valid)).token);
      await users.register({ ...valid, name: 'bobby1', email: 'bob@example.com' });
      await expectError(
        users.edit(alice, { email: 'BOB@example.com' }),
        'CONFLICT',
        USER_MESSAGES.emailTaken,
      );
      expect((await users.edit(alice, { email: 'ALICE@example.com' })).user.email).toBe('ALICE@example.com');
    });

    it('changes the password: other tokens are refused, the caller keeps a working token, gateways are told', async () => {
      const { users, callerOf, revocations } = setup();
      const first = (await users.register(valid)).token;
      const second = (await users.login({ email: valid.email, password: valid.password })).token;
      await sleep(2); // tokens are told apart from a password change by their issue time, in ms
      const caller = await callerOf(first);
      await users.edit(caller, { password: 'Otter9River', confirmedPassword: 'Otter9River' });
      await sleep(2);
      expect(revocations.written).toEqual([
        { user: caller.userId, revokedBefore: expect.any(Number), keep: caller.jti },
      ]);
      expect((await callerOf(first)).userId).toBe(caller.userId);
      await expectError(callerOf(second), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
      // A token issued after the change is valid; a later change from it revokes the first one.
      const third = (await users.login({ email: valid.email, password: 'Otter9River' })).token;
      await sleep(2);
      await users.edit(await callerOf(third), { password: 'Badger4Moon' });
      await expectError(callerOf(first), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
      expect((await callerOf(third)).userId).toBe(caller.userId);
    });

    it('mails a notice to the old address when the e-mail or the password changes, none when it fails', async () => {
      const { users, callerOf, notices, revocations } = setup();
      const alice = await callerOf((await users.register(valid)).token);
      await users.register({ ...valid, name: 'bobby1', email: 'bob@example.com' });
      await expectError(
        users.edit(alice, { email: 'bob@example.com' }),
        'CONFLICT',
        USER_MESSAGES.emailTaken,
      );
      revocations.failing = true;
      await expectError(
        users.edit(alice, { password: 'Otter9River' }),
        'UNAVAILABLE',
        COMMON_MESSAGES.unavailable,
      );
      revocations.failing = false;
      expect(notices.in('sent')).toEqual([]);
      await users.edit(alice, { email: 'alice@example.org' });
      await users.edit(alice, { password: 'Otter9River' });
      await users.edit(alice, { name: 'alice2' });
      expect(notices.in('sent')).toEqual([
        { to: valid.email, subject: 'Your Oasis 198 e-mail was changed' },
        { to: 'alice@example.org', subject: 'Your Oasis 198 password was changed' },
      ]);
      expect(notices.in('held')).toEqual([]);
    });

    it('needs a login within REAUTH_WINDOW_S for e-mail, password and deletion, not for a rename', async () => {
      const { repo, users, callerOf, revocations } = setup();
      const { token, _id } = await users.register(valid);
      const fresh = await callerOf(token);
      const stale = { ...fresh, authTime: (fresh.authTime ?? 0) - 601 };
      const before = structuredClone(repo.users.get(_id));
      const reauth = 'Please enter your password to continue.';
      await expectError(users.edit(stale, { email: 'thief@example.com' }), 'reauth_required', reauth);
      await expectError(
        users.edit(stale, { password: 'Thief9Owns', confirmedPassword: 'Thief9Owns' }),
        'reauth_required',
        reauth,
      );
      await expectError(users.delete(stale), 'reauth_required', reauth);
      await expectError(users.delete({ ...fresh, authTime: undefined }), 'reauth_required', reauth);
      expect(repo.users.get(_id)).toEqual(before);
      expect(revocations.written).toEqual([]);
      // A rename needs no recent login; a login within the window passes.
      expect((await users.edit(stale, { name: 'alice2' })).user.name).toBe('alice2');
      const almost = { ...fresh, authTime: (fresh.authTime ?? 0) - 590 };
      expect((await users.edit(almost, { email: 'alice@example.org' })).user.email).toBe('alice@example.org');
    });

    it('stores the revocation before the new password: when it cannot be stored, 503 and nothing changes', async () => {
      const { repo, users, callerOf, revocations } = setup();
      const first = (await users.register(valid)).token;
      const thief = (await users.login({ email: valid.email, password: valid.password })).token;
      await sleep(2);
      const caller = await callerOf(first);
      revocations.failing = true;
      await expectError(
        users.edit(caller, { password: 'Otter9River', confirmedPassword: 'Otter9River' }),
        'UNAVAILABLE',
        COMMON_MESSAGES.unavailable,
      );
      expect(repo.users.get(caller.userId)?.passwordHash).toBe(`hashed:${valid.password}`);
      expect((await callerOf(thief)).userId).toBe(caller.userId);
      revocations.failing = false;
      await users.edit(caller, { password: 'Otter9River', confirmedPassword: 'Otter9River' });
      await expectError(callerOf(thief), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
    });

    it('refuses anything but exactly one valid field', async () => {
      const { users, callerOf } = setup();
      const caller = await callerOf((await users.register(valid)).token);
      await expectError(users.edit(caller, {}), 'VALIDATION', USER_MESSAGES.oneEditField);
      await expectError(
        users.edit(caller, { name: 'alice3', email: 'x@example.com' }),
        'VALIDATION',
        USER_MESSAGES.oneEditField,
      );
      await expectError(
        users.edit(caller, { name: 'alice3', confirmedPassword: 'x' }),
        'VALIDATION',
        USER_MESSAGES.oneEditField,
      );
      await expectError(
        users.edit(caller, { password: 'Otter9River', confirmedPassword: 'Otter9Rivers' }),
        'VALIDATION',
        MESSAGES.confirmedPassword,
      );
      await expectError(
        users.edit(caller, { password: 'qwerty123' }),
        'VALIDATION',
        USER_MESSAGES.commonPassword,
      );
    });
  });

  describe('delete and logout', () => {
    it('deletes: a tombstone with user.deleted, every token refused, the e-mail free at once', async () => {
      const { users, callerOf, published, revocations } = setup();
      const { token, _id } = await users.register(valid);
      const caller = await callerOf(token);
      published.length = 0;
      expect(await users.delete(caller)).toEqual({ message: USER_MESSAGES.deleted });
      expect(published[0]).toMatchObject({ _id, tombstone: true });
      expect(pendingEvents(firstOf(published)).map((e) => e.id)).toEqual([EventIds.userDeleted(_id)]);
      expect(revocations.written).toEqual([
        { user: _id, revokedBefore: expect.any(Number) },
        { user: _id, deleted: true },
      ]);
      await expectError(callerOf(token), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
      await expectError(
        users.login({ email: valid.email, password: valid.password }),
        'VALIDATION',
        USER_MESSAGES.badCredentials,
      );
      await expectError(users.delete(caller), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
      expect((await users.register(valid))._id).not.toBe(_id);
    });

    it('voids every token before the account goes: when that cannot be stored, 503 and nothing is deleted', async () => {
      const { repo, users, callerOf, published, revocations } = setup();
      const { token, _id } = await users.register(valid);
      const caller = await callerOf(token);
      published.length = 0;
      revocations.failing = true;
      await expectError(users.delete(caller), 'UNAVAILABLE', COMMON_MESSAGES.unavailable);
      expect(repo.users.get(_id)?.tombstone).toBe(false);
      expect(published).toEqual([]);
      revocations.failing = false;
      expect(await users.delete(caller)).toEqual({ message: USER_MESSAGES.deleted });
    });

    it('refuses registrations, renames and deletions with 503 while the USERS stream is full, storing nothing', async () => {
      const { repo, users, callerOf, published, stream } = setup();
      const { token, _id } = await users.register(valid);
      const caller = await callerOf(token);
      published.length = 0;
      stream.full = true;
      const other = { ...valid, name: 'bobby1', email: 'bob@example.com' };
      await expectError(users.register(other), 'UNAVAILABLE', 'event storage is full');
      await expectError(users.edit(caller, { name: 'alice2' }), 'UNAVAILABLE', 'event storage is full');
      await expectError(users.delete(caller), 'UNAVAILABLE', 'event storage is full');
      expect([...repo.users.values()].map((u) => [u._id, u.name, !!u.tombstone])).toEqual([
        [_id, 'alice1', false],
      ]);
      expect(published).toEqual([]);
      // A password change announces nothing: it goes through.
      await users.edit(caller, { password: 'Zebra3Lamp', confirmedPassword: 'Zebra3Lamp' });
      stream.full = false;
      expect((await users.register(other)).name).toBe('bobby1');
    });

    it('logs out one token only', async () => {
      const { users, sessions, callerOf } = setup();
      const first = (await users.register(valid)).token;
      const second = (await users.login({ email: valid.email, password: valid.password })).token;
      const caller: TokenClaims = await callerOf(first);
      expect(await sessions.logout(caller)).toEqual({ message: USER_MESSAGES.loggedOut });
      await expectError(callerOf(first), 'UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
      expect((await callerOf(second)).userId).toBe(caller.userId);
    });
  });
});
