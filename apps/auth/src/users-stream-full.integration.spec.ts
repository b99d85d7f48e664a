import type { INestApplication } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import { type AuthUser, Requests, Streams, type TokenClaims } from '@oasis198/contracts';
import { createService, RpcClient, STREAM_FULL_MESSAGE } from '@oasis198/service-kit';
import { expectAppError, fillStream, useTestInfra, waitFor } from '@oasis198/testing';
import type { Model } from 'mongoose';
import { connect, DiscardPolicy, type JetStreamManager, type NatsConnection } from 'nats';
import { authDefinition } from './auth.definition';
import { authTestEnv } from './testing/auth-env';
import { User } from './users/user.schema';

// Auth when the USERS stream is full, against real NATS and FerretDB: registrations, renames and
// deletions answer 503 and store nothing; nothing stored in the stream is dropped.
const infra = useTestInfra();

describe('auth service with a full USERS stream', () => {
  let app: INestApplication;
  let rpc: RpcClient;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    const env = authTestEnv(infra(), 'auth-full', {
      LOG_LEVEL: 'silent',
      USERS_STREAM_MAX_BYTES: String(1024 * 1024),
      USERS_STREAM_MAX_MSG_SIZE: String(4096),
      STREAM_CHECK_MS: '200',
      OUTBOX_SWEEP_MS: '200',
    });
    ({ app } = await createService(authDefinition, env));
    rpc = await RpcClient.forTests(infra().natsUrl, 'auth-full-test');
    nc = await connect({ servers: infra().natsUrl });
    jsm = await nc.jetstreamManager();
  });

  afterAll(async () => {
    await rpc?.close();
    await nc?.close();
    await app?.close();
  });

  let seq = 0;
  const account = () => {
    const tag = `${Date.now().toString(36).slice(-5)}${++seq}`;
    return {
      name: `f${tag}`,
      email: `f${tag}@example.com`,
      password: `Pw${tag}z7`,
      confirmedPassword: `Pw${tag}z7`,
    };
  };
  const register = (body = account()) => rpc.request<AuthUser>(Requests.auth.register, body);
  const users = () => app.get<Model<User>>(getModelToken(User.name));
  const streamState = async () => (await jsm.streams.info(Streams.users.name)).state;

  it('keeps the USERS stream bounded with the configured limits, discarding new messages', async () => {
    expect((await jsm.streams.info(Streams.users.name)).config).toMatchObject({
      max_bytes: 1024 * 1024,
      max_msg_size: 4096,
      discard: DiscardPolicy.New,
    });
  });

  it('answers 503 to registrations, renames and deletions while the stream is full, and stores none', async () => {
    const alice = await register();
    const claims = await rpc.request<TokenClaims>(Requests.auth.verify, { token: alice.token });
    await waitFor(async () => (await users().findById(alice._id).lean())?.outboxAt === null, {
      what: 'user.registered to go out',
    });

    const { config, full, refusal } = await fillStream(nc, Streams.users.name, 'user.filler', 16 * 1024);
    expect(refusal).toMatchObject({ api_error: { err_code: 10077 } });
    await new Promise((resolve) => setTimeout(resolve, 600)); // two looks at the stream by auth

    const unavailable = { code: 'UNAVAILABLE', message: STREAM_FULL_MESSAGE };
    const bob = account();
    expect(await expectAppError(register(bob))).toEqual(unavailable);
    expect(
      await expectAppError(rpc.request(Requests.auth.edit, { caller: claims, body: { name: 'renamed1' } })),
    ).toEqual(unavailable);
    expect(await expectAppError(rpc.request(Requests.auth.delete, { caller: claims }))).toEqual(unavailable);
    expect(await users().countDocuments({ emailKey: bob.email.toLowerCase() })).toBe(0);
    expect(await users().findById(alice._id).lean()).toMatchObject({ name: alice.name, outboxAt: null });
    expect(await rpc.request<TokenClaims>(Requests.auth.verify, { token: alice.token })).toMatchObject({
      userId: alice._id,
    });
    expect(await streamState()).toMatchObject({
      messages: full.messages,
      first_seq: full.first_seq,
      last_seq: full.last_seq,
    });

    await jsm.streams.update(Streams.users.name, { ...config, max_bytes: 1024 * 1024 });
    const registered = await waitFor(() => register(bob).catch(() => undefined), {
      what: 'the registration to be accepted',
    });
    expect(registered.name).toBe(bob.name);
  });
});
