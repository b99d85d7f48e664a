import { COMMON_MESSAGES, MAX_BODY_BYTES, QueueGroups, Requests, USER_MESSAGES } from '@oasis198/contracts';
import { connect } from 'nats';
import { newAccount, useAccountsStack } from './testing/accounts-stack';
import { expectRateLimited } from './testing/rate-limited';

interface ErrorBody {
  message: string;
  code: string;
}

const LOGIN_FAILURE_WINDOW_S = 900;
/** REGISTER_WINDOW_S's default. */
const REGISTER_WINDOW_S = 3600;

// Low limits on purpose; the other suites run with limits too high to reach.
describe('accounts: limits of the HTTP edge', () => {
  const stack = useAccountsStack({
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
    // The address limit has its own suite (login-limits.integration.spec.ts).
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
    LOGIN_FAILURE_WINDOW_S: String(LOGIN_FAILURE_WINDOW_S),
    REGISTER_MAX_PER_WINDOW: '6',
    RPC_TIMEOUT_MS: '1000',
  });

  const login = (body: unknown, headers?: Record<string, string>) =>
    stack().call<ErrorBody & { token: string }>('POST', '/api/users/login', { body, headers });

  it('answers 413 with a JSON message for a body over 100 kB', async () => {
    const res = await stack().call<ErrorBody>('POST', '/api/users/', {
      body: { ...newAccount(), padding: 'x'.repeat(MAX_BODY_BYTES) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: COMMON_MESSAGES.tooLarge, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 429 after repeated failed logins for one account; a success resets its count', async () => {
    const account = newAccount();
    expect((await stack().call('POST', '/api/users/', { body: account })).status).toBe(201);
    const wrong = { email: account.email, password: 'Wrong98765' };

    // Two failures, then a success resets the count.
    for (let i = 0; i < 2; i++) expect((await login(wrong)).status).toBe(400);
    expect((await login({ email: account.email, password: account.password })).status).toBe(200);

    for (let i = 0; i < 3; i++) {
      const res = await login(wrong);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(USER_MESSAGES.badCredentials);
    }
    // Now even the right password waits for the window to end.
    for (const body of [wrong, { email: account.email.toUpperCase(), password: account.password }]) {
      expectRateLimited(await login(body), LOGIN_FAILURE_WINDOW_S);
    }
    // Another e-mail from the same address is not affected.
    expect((await login({ email: `other${account.email}`, password: 'Wrong98765' })).status).toBe(400);
  });

  it('answers 429 to registrations beyond REGISTER_MAX_PER_WINDOW from one address', async () => {
    // This suite has registered one account so far (and the 413 body never reached the limiter).
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await stack().call('POST', '/api/users/', { body: newAccount() })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    expectRateLimited(await stack().call('POST', '/api/users/', { body: newAccount() }), REGISTER_WINDOW_S);
  });

  it('answers 503 when no auth service is running', async () => {
    await stack().stopAuth();
    const res = await login({ email: 'someone@example.com', password: 'Abcdef123' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ message: COMMON_MESSAGES.unavailable, code: 'UNAVAILABLE' });
  });

  it('answers 503 after RPC_TIMEOUT_MS when the auth service takes the request but never answers', async () => {
    // A stuck replica: it is in the queue group and receives auth.login, but never replies.
    const stuck = await connect({ servers: stack().servers.natsUrl });
    const received: string[] = [];
    stuck.subscribe(Requests.auth.login, {
      queue: QueueGroups.auth,
      callback: (_e, msg) => received.push(msg.subject),
    });
    await stuck.flush();
    try {
      const started = Date.now();
      const res = await login({ email: 'someone@example.com', password: 'Abcdef123' });
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: COMMON_MESSAGES.unavailable, code: 'UNAVAILABLE' });
      expect(received).toEqual([Requests.auth.login]);
      expect(took).toBeGreaterThanOrEqual(950);
      expect(took).toBeLessThan(3000);
    } finally {
      await stuck.close();
    }
  });
});
