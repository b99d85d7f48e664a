import type { INestApplication } from '@nestjs/common';
import { COMMON_MESSAGES, KvBuckets } from '@oasis198/contracts';
import { natsServers } from '@oasis198/service-kit';
import { connect } from 'nats';
import { newSigningKeys, waitFor } from '@oasis198/testing';
import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import {
  AccountsStack,
  newAccount,
  TEST_JWT_KEYS,
  useAccountsStack,
  useStack,
} from '../testing/accounts-stack';

interface Body {
  message?: string;
  token?: string;
  _id?: string;
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
const sign = (claims: Record<string, unknown>, privateKey = TEST_JWT_KEYS.privateKey) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(createPrivateKey(privateKey));

/**
 * Each gateway replica checks tokens itself (signature, expiry) against the revocations that auth
 * writes to a NATS KV bucket and every replica watches: no auth round trip per request.
 */
describe('tokens checked by every gateway replica itself, revocations pushed to each', () => {
  const stack = useAccountsStack();
  let second = '';
  let secondApp: INestApplication | undefined;

  beforeAll(async () => {
    ({ baseUrl: second, app: secondApp } = await stack().startGatewayReplica());
  });

  const register = async () => {
    const account = newAccount('t');
    const res = await stack().call<Body>('POST', '/api/users/', { body: account });
    expect(res.status).toBe(201);
    return { ...account, id: res.body._id ?? '', token: res.body.token ?? '' };
  };
  const login = async ({ email, password }: { email: string; password: string }) => {
    const res = await stack().call<Body>('POST', '/api/users/login', { body: { email, password } });
    expect(res.status).toBe(200);
    return res.body.token ?? '';
  };
  /**
   * A call behind the auth guard that no service needs to judge: the reward edit's body is
   * refused (400) once the caller is known, so a token the gateway accepts gets 400, one it
   * refuses 401.
   */
  const guarded = (token: string, baseUrl = second) =>
    stack().call<Body>('PATCH', '/api/rewards/000000000000000000000000/edit', {
      token,
      body: { points: 'many' },
      baseUrl,
    });

  it('refuses a logged-out token on another replica promptly, and accepts the others', async () => {
    const user = await register();
    const other = await login(user);
    expect((await guarded(user.token)).status).toBe(400);
    const logout = await stack().call('POST', '/api/users/logout', { token: user.token });
    expect(logout.status).toBe(200);
    const answered = Date.now();
    await waitFor(async () => (await guarded(user.token)).status === 401, {
      timeoutMs: 2000,
      intervalMs: 2,
      what: 'the second replica to refuse the logged-out token',
    });
    const elapsed = Date.now() - answered;
    process.stdout.write(`logout answered -> 401 on a second replica: ${elapsed} ms\n`);
    expect(elapsed).toBeLessThan(1000);
    expect((await guarded(user.token)).body.message).toBe(COMMON_MESSAGES.invalidToken);
    expect((await guarded(other)).status).toBe(400);
  });

  it('judges tokens without the auth service: valid ones work, revoked, forged and expired ones do not', async () => {
    const alice = await register(); // logs out one of two tokens
    const aliceOther = await login(alice);
    const bob = await register(); // deletes his account: both tokens void
    const bobOther = await login(bob);
    const carol = await register(); // changes her password: only the caller's token stays
    const carolOther = await login(carol);
    const dave = await register(); // never seen by the second replica before auth stops

    expect((await stack().call('POST', '/api/users/logout', { token: alice.token })).status).toBe(200);
    expect((await stack().call('DELETE', '/api/users/delete', { token: bob.token })).status).toBe(200);
    const password = 'Changed77Pw';
    const changed = await stack().call('PATCH', '/api/users/edit', {
      token: carol.token,
      body: { password, confirmedPassword: password },
    });
    expect(changed.status).toBe(200);
    await waitFor(async () => (await guarded(carolOther)).status === 401, { what: 'the password change' });

    await stack().stopAuth();
    try {
      const now = Math.floor(Date.now() / 1000);
      const claims = claimsOf(dave.token);
      const forged = await sign({ ...claims, jti: 'forged' }, newSigningKeys().privateKey);
      const expired = await sign({ ...claims, jti: 'expired', iat: now - 100, exp: now - 10 });
      for (const token of [dave.token, aliceOther, carol.token]) {
        expect([token === dave.token ? 'dave' : 'valid', (await guarded(token)).status]).toEqual([
          token === dave.token ? 'dave' : 'valid',
          400,
        ]);
      }
      for (const token of [alice.token, bob.token, bobOther, carolOther, forged, expired, 'not-a-jwt']) {
        const res = await guarded(token);
        expect([res.status, res.body.message]).toEqual([401, COMMON_MESSAGES.invalidToken]);
      }
    } finally {
      await stack().startAuth();
    }
  });

  it('keeps judging tokens with its own watch when another replica in the same process stops', async () => {
    const user = await register();
    expect((await guarded(user.token, stack().baseUrl)).status).toBe(400);
    // Stopped the way a rollout stops a replica (the stack then does not close it again).
    const gateways = stack().gateways;
    if (secondApp) gateways.splice(gateways.indexOf(secondApp), 1);
    await secondApp?.close();
    const res = await guarded(user.token, stack().baseUrl);
    expect({ status: res.status, message: res.body.message }).toMatchObject({ status: 400 });
    const logout = await stack().call('POST', '/api/users/logout', { token: user.token });
    expect(logout.status).toBe(200);
    expect((await guarded(user.token, stack().baseUrl)).status).toBe(401);
  });
});

describe('a gateway replica that has not caught up with the revocations', () => {
  // Nothing started yet: no auth service, so no revocation bucket to watch.
  let natsUrl = (): string => '';
  const stack = useStack(async (infra) => {
    natsUrl = () => infra.natsUrl;
    return new AccountsStack(infra);
  }, 'the empty stack');

  it('is not ready and serves no authenticated call until its watch has caught up', async () => {
    const s = stack();
    const { baseUrl } = await s.startGatewayReplica({ ready: false });
    const now = Math.floor(Date.now() / 1000);
    const token = await sign({
      sub: 'u1',
      jti: 'j1',
      name: 'early',
      iss: 'oasis198-auth',
      iat: now,
      exp: now + 600,
    });
    const ready = () => fetch(`${baseUrl}/health/ready`).then((r) => r.status);
    const call = () =>
      s.call<Body>('PATCH', '/api/rewards/000000000000000000000000/edit', {
        token,
        body: { points: 'many' },
        baseUrl,
      });
    expect(await ready()).toBe(503);
    const early = await call();
    expect([early.status, early.body.message]).toEqual([503, COMMON_MESSAGES.unavailable]);
    // Anonymous reads do not depend on tokens.
    expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);

    // A call made while the watch catches up (as after a reconnect to another NATS node) waits
    // for it: the bucket appears, the watch (tried every second) catches up, the call is served.
    const held = call();
    const nc = await connect({ servers: natsServers(natsUrl()) });
    await (await nc.jetstream().views.kv(KvBuckets.tokens)).status();
    await nc.close();
    expect((await held).status).toBe(400);
    expect(await ready()).toBe(200);
  });
});
