import type { INestApplication } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import {
  type AuthUser,
  EventIds,
  EventTypes,
  KvBuckets,
  Requests,
  Streams,
  type TokenClaims,
  TokenRecords,
} from '@oasis198/contracts';
import { createService, makeEvent, Metrics, outboxKey, RpcClient } from '@oasis198/service-kit';
import { startTestInfra, type TestInfra, waitFor } from '@oasis198/testing';
import type { Model } from 'mongoose';
import { connect, type NatsConnection } from 'nats';
import type { Histogram } from 'prom-client';
import { authDefinition } from './auth.definition';
import { authTestEnv } from './testing/auth-env';
import { User } from './users/user.schema';

let seq = 0;
const account = () => {
  seq += 1;
  const tag = `${Date.now().toString(36).slice(-5)}${seq}`;
  return {
    name: `a${tag}`,
    email: `a${tag}@example.com`,
    password: `Pw${tag}z7`,
    confirmedPassword: `Pw${tag}z7`,
  };
};

describe('auth service over NATS (two replicas, events, revocations)', () => {
  let infra: TestInfra;
  const replicas: INestApplication[] = [];
  let rpc: RpcClient;
  let nc: NatsConnection;
  let env: Record<string, string>;

  beforeAll(async () => {
    infra = await startTestInfra();
    env = authTestEnv(infra, 'auth-it', { OUTBOX_SWEEP_MS: '200', SHUTDOWN_GRACE_MS: '200' });
    for (let i = 0; i < 2; i++) replicas.push((await createService(authDefinition, env)).app);
    rpc = await RpcClient.forTests(infra.natsUrl, 'auth-it', 5000);
    nc = await connect({ servers: infra.natsUrl });
  }, 120_000);

  afterAll(async () => {
    await rpc?.close();
    await nc?.close();
    for (const app of replicas) await app.close();
    await infra?.stop();
  }, 60_000);

  const replica = (i: number): INestApplication => {
    const app = replicas[i];
    if (!app) throw new Error(`no replica ${i}`);
    return app;
  };
  const users = () => replica(0).get<Model<User>>(getModelToken(User.name));
  const register = (body = account()) => rpc.request<AuthUser>(Requests.auth.register, body);

  it('shares the work between two replicas in one queue group', async () => {
    const body = account();
    await register(body);
    const before = await Promise.all(replicas.map((app) => loginCount(app)));
    for (let i = 0; i < 20; i++) {
      await rpc.request<AuthUser>(Requests.auth.login, { email: body.email, password: body.password });
    }
    const served = (await Promise.all(replicas.map((app) => loginCount(app)))).map(
      (n, i) => n - (before[i] ?? 0),
    );
    expect(served.reduce((a, b) => a + b, 0)).toBe(20);
    for (const count of served) expect(count).toBeGreaterThan(0);
  });

  it('times the database commands it sends (a registration inserts, a lookup finds)', async () => {
    const count = async (command: string) =>
      (await Promise.all(replicas.map((app) => databaseCommands(app, command)))).reduce((a, b) => a + b, 0);
    const before = { insert: await count('insert'), find: await count('find') };
    await register();
    expect(await count('insert')).toBeGreaterThan(before.insert);
    await users().findOne({ _id: 'nobody' });
    expect(await count('find')).toBeGreaterThan(before.find);
  });

  it('publishes user.registered with its msg-id and empties the outbox', async () => {
    const user = await register();
    const jsm = await nc.jetstreamManager();
    const stored = await waitFor(
      async () => jsm.streams.getMessage(Streams.users.name, { last_by_subj: EventTypes.userRegistered }),
      { what: 'user.registered in the USERS stream' },
    );
    const event = stored.json<{ id: string; data: { userId: string; name: string } }>();
    expect(event.id).toBe(EventIds.userRegistered(user._id));
    expect(stored.header.get('Nats-Msg-Id')).toBe(EventIds.userRegistered(user._id));
    expect(event.data).toEqual({ userId: user._id, name: user.name });
    const doc = await users().findById(user._id).lean();
    expect(doc?.outbox).toEqual({});
    expect(doc?.outboxAt).toBeNull();
    expect(doc?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(doc?.emailKey).toBe(doc?.email.toLowerCase());
  });

  it('publishes events a crash left in an outbox (the relay sweep)', async () => {
    // A user written with its event, as if the service died before publishing it.
    const id = '0123456789abcdef01234567';
    const event = makeEvent(
      EventTypes.userRenamed,
      EventIds.userRenamed(id, 'Swept1', 1),
      { userId: id, name: 'Swept1' },
      new Date(Date.now() - 10_000),
    );
    await users().create({
      _id: id,
      name: 'Swept1',
      email: 'swept1@example.com',
      emailKey: 'swept1@example.com',
      passwordHash: 'x',
      outbox: { [outboxKey(event.id)]: event },
      outboxAt: new Date(Date.now() - 10_000),
    });
    const jsm = await nc.jetstreamManager();
    const stored = await waitFor(
      async () => {
        const msg = await jsm.streams.getMessage(Streams.users.name, {
          last_by_subj: EventTypes.userRenamed,
        });
        return msg.json<{ id: string }>().id === event.id ? msg : undefined;
      },
      { what: 'the left-over event to be published' },
    );
    expect(stored.subject).toBe(EventTypes.userRenamed);
    await waitFor(async () => (await users().findById(id).lean())?.outboxAt === null, {
      what: 'the outbox to be cleared',
    });
  });

  /** A record of the token bucket that gateways watch, as JSON (undefined when missing). */
  const record = async (key: string) => {
    const kv = await nc.jetstream().views.kv(KvBuckets.tokens, { bindOnly: true });
    const entry = await kv.get(key);
    return entry?.operation === 'PUT' ? entry.json<Record<string, unknown>>() : undefined;
  };

  it('keeps the token bucket bounded: entries live as long as a token, in a bucket of limited size', async () => {
    const jsm = await nc.jetstreamManager();
    const { config } = await jsm.streams.info(`KV_${KvBuckets.tokens}`);
    expect(config.max_age).toBe(7 * 24 * 3600 * 1e9);
    expect(config.max_bytes).toBe(64 * 1024 * 1024);
    expect(config.max_msgs_per_subject).toBe(1);
    expect(config.discard).toBe('new');
  });

  it('deletes an account: tombstone, user.deleted, then the record is gone; every token is void in the bucket', async () => {
    const user = await register();
    const claims = await rpc.request<TokenClaims>(Requests.auth.verify, { token: user.token });
    await rpc.request(Requests.auth.delete, { caller: claims });
    await waitFor(async () => (await users().findById(user._id).lean()) === null, {
      what: 'the hard delete',
    });
    const jsm = await nc.jetstreamManager();
    const stored = await jsm.streams.getMessage(Streams.users.name, { last_by_subj: EventTypes.userDeleted });
    expect(stored.json<{ id: string }>().id).toBe(EventIds.userDeleted(user._id));
    // Answered after the record is stored: gateways refuse every token of the user.
    expect(await record(TokenRecords.user(user._id))).toMatchObject({ deleted: true });
    await expect(rpc.request(Requests.auth.verify, { token: user.token })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    // A second deletion with a token a gateway still let through (the first deletion's record was
    // not stored, say) is refused, and stores the record again.
    const kv = await nc.jetstream().views.kv(KvBuckets.tokens, { bindOnly: true });
    await kv.purge(TokenRecords.user(user._id));
    expect(await record(TokenRecords.user(user._id))).toBeUndefined();
    await expect(rpc.request(Requests.auth.delete, { caller: claims })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(await record(TokenRecords.user(user._id))).toMatchObject({ deleted: true });
  });

  it('writes logouts, password changes and renames to the token bucket before answering', async () => {
    const user = await register();
    const claims = await rpc.request<TokenClaims>(Requests.auth.verify, { token: user.token });
    await rpc.request(Requests.auth.edit, { caller: claims, body: { name: 'Renamed9' } });
    expect(await record(TokenRecords.name(user._id))).toMatchObject({ name: 'Renamed9' });
    const password = 'Fresh7Password';
    await rpc.request(Requests.auth.edit, {
      caller: claims,
      body: { password, confirmedPassword: password },
    });
    expect(await record(TokenRecords.user(user._id))).toMatchObject({
      revokedBefore: expect.any(Number),
      keep: claims.jti,
    });
    await rpc.request(Requests.auth.logout, { caller: claims });
    expect(await record(TokenRecords.user(user._id))).toMatchObject({
      loggedOut: [{ jti: claims.jti, iat: claims.issuedAt }],
    });
    // Each lives no longer than a token issued now.
    expect(Number((await record(TokenRecords.name(user._id)))?.['until'])).toBeLessThanOrEqual(
      Date.now() + 7 * 24 * 3600 * 1000,
    );
  });

  it('keeps one key per user however often they log in and out: the bucket is bounded by the users', async () => {
    const body = account();
    const user = await register(body);
    const credentials = { email: body.email, password: body.password };
    const keysBefore = await bucketKeys();
    const loops = 60;
    const loggedOut: string[] = [];
    for (let i = 0; i < loops; i++) {
      const { token } = await rpc.request<AuthUser>(Requests.auth.login, credentials);
      const caller = await rpc.request<TokenClaims>(Requests.auth.verify, { token });
      await rpc.request(Requests.auth.logout, { caller });
      loggedOut.push(token);
    }
    const keysAfter = await bucketKeys();
    const added = keysAfter.filter((key) => !keysBefore.includes(key));
    expect(added.filter((key) => key !== TokenRecords.user(user._id))).toEqual([]);
    const stored = await record(TokenRecords.user(user._id));
    const bytes = Buffer.byteLength(JSON.stringify(stored));
    process.stdout.write(
      `${loops} logins and logouts: ${keysAfter.length} keys, the user's record ${bytes} bytes\n`,
    );
    expect(bytes).toBeLessThan(1200);
    // Every logged-out token stays refused; a login after them works.
    for (const token of [loggedOut[0], loggedOut[30], loggedOut[loops - 1]]) {
      await expect(rpc.request(Requests.auth.verify, { token })).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    }
    const { token } = await rpc.request<AuthUser>(Requests.auth.login, credentials);
    expect(await rpc.request<TokenClaims>(Requests.auth.verify, { token })).toMatchObject({
      userId: user._id,
    });
  }, 120_000);

  it('stores every one of a burst of logouts of one user, from two replicas at once', async () => {
    const body = account();
    const user = await register(body);
    const credentials = { email: body.email, password: body.password };
    const callers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { token } = await rpc.request<AuthUser>(Requests.auth.login, credentials);
        return { token, caller: await rpc.request<TokenClaims>(Requests.auth.verify, { token }) };
      }),
    );
    const answers = await Promise.allSettled(
      callers.map(({ caller }) => rpc.request(Requests.auth.logout, { caller })),
    );
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
    const stored = await record(TokenRecords.user(user._id));
    expect((stored?.['loggedOut'] as unknown[]).length).toBe(10);
    for (const { token } of callers) {
      await expect(rpc.request(Requests.auth.verify, { token })).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    }
  });

  /** Every key of the token bucket. */
  const bucketKeys = async () => {
    const kv = await nc.jetstream().views.kv(KvBuckets.tokens, { bindOnly: true });
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    return keys;
  };
});

/**
 * How many observations of one label value a histogram of this replica has (its own Prometheus
 * registry): auth.login requests handled, database commands of one kind sent.
 */
async function observations(
  app: INestApplication,
  histogram: (metrics: Metrics) => Histogram<string>,
  label: string,
  value: string,
): Promise<number> {
  const metric = await histogram(app.get(Metrics)).get();
  return metric.values
    .filter((v) => v.metricName?.endsWith('_count') && v.labels[label] === value)
    .reduce((sum, v) => sum + v.value, 0);
}

const loginCount = (app: INestApplication) =>
  observations(app, (m) => m.rpcDuration, 'subject', Requests.auth.login);
const databaseCommands = (app: INestApplication, command: string) =>
  observations(app, (m) => m.databaseCommands, 'command', command);
