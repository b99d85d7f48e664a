import type { INestApplication } from '@nestjs/common';
import { type AuthUser, Requests } from '@oasis198/contracts';
import { createService, Metrics, RpcClient } from '@oasis198/service-kit';
import { startTestInfra, type TestInfra } from '@oasis198/testing';
import { authDefinition } from './auth.definition';
import { authTestEnv } from './testing/auth-env';

/**
 * Load shedding for argon2 (PASSWORD_HASH_CONCURRENCY): a storm of logins whose callers give up
 * leaves no backlog of hashes in front of the next player. One hash at a time and a cost of about
 * 0.1 s each here: the 200 guesses are some 10 s of work on two cores, and their callers wait 1 s.
 */
describe('auth under a storm of logins', () => {
  let infra: TestInfra;
  let app: INestApplication;
  let rpc: RpcClient;

  beforeAll(async () => {
    infra = await startTestInfra();
    const env = authTestEnv(infra, 'auth-storm', {
      PASSWORD_HASH_PASSES: '10',
      PASSWORD_HASH_CONCURRENCY: '1',
      SHUTDOWN_GRACE_MS: '200',
    });
    ({ app } = await createService(authDefinition, env));
    rpc = await RpcClient.forTests(infra.natsUrl, 'auth-storm');
  }, 120_000);

  afterAll(async () => {
    await rpc?.close();
    await app?.close();
    await infra?.stop();
  }, 60_000);

  it('does not look up or hash for callers that gave up: the login after the storm is answered', async () => {
    const account = {
      name: 'stormy1',
      email: 'stormy1@example.com',
      password: 'Weather42',
      confirmedPassword: 'Weather42',
    };
    await rpc.request<AuthUser>(Requests.auth.register, account);

    const guesses = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        rpc.request(Requests.auth.login, { email: `nobody${i}@example.com`, password: 'Wrong98765' }, 1000),
      ),
    );
    const unanswered = guesses.filter(
      (g) => g.status === 'rejected' && /not available/.test(String(g.reason)),
    );
    expect(unanswered.length).toBeGreaterThan(100);

    // Before, the 200 hashes were all queued at once (in Node's thread pool) and ran to the end:
    // this login waited behind the rest of them, and its caller gave up too (503).
    const login = await rpc.request<AuthUser>(
      Requests.auth.login,
      { email: account.email, password: account.password },
      2500,
    );
    expect(login.name).toBe(account.name);

    const { values } = await app.get(Metrics).rpcExpired.get();
    expect(values.find((v) => v.labels.subject === Requests.auth.login)?.value).toBeGreaterThan(0);
  }, 60_000);

  it("keeps one account's loop of logins to one place in the line: another player's login is answered", async () => {
    const looper = { name: 'looper1', email: 'looper1@example.com', password: 'Circles42' };
    const other = { name: 'other1', email: 'other1@example.com', password: 'Elsewhere42' };
    for (const account of [looper, other])
      await rpc.request<AuthUser>(Requests.auth.register, {
        ...account,
        confirmedPassword: account.password,
      });

    // One account's 40 logins at once, whose callers wait long enough to be hashed.
    const loop = Promise.allSettled(
      Array.from({ length: 40 }, () =>
        rpc.request<AuthUser>(
          Requests.auth.login,
          { email: looper.email, password: looper.password },
          30_000,
        ),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The loop holds one place in the line: this login's turn comes after a hash or two of it,
    // not after all 40 (some 12 s here), long after its caller would have given up (503).
    const login = await rpc.request<AuthUser>(
      Requests.auth.login,
      { email: other.email, password: other.password },
      2000,
    );
    expect(login.name).toBe(other.name);
    const looped = await loop;
    expect(looped.filter((r) => r.status === 'fulfilled')).toHaveLength(40);
  }, 120_000);
});
