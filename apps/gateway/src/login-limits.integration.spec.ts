import { USER_MESSAGES } from '@oasis198/contracts';
import { newAccount, useAccountsStack } from './testing/accounts-stack';
import { expectRateLimited } from './testing/rate-limited';

interface ErrorBody {
  message: string;
  code: string;
}

const WINDOW_S = 900;

/**
 * Logins and registrations (DECISIONS "Fair play") against two gateway replicas that share
 * nothing but NATS. Clients come from 127.0.0.1, a trusted proxy, so X-Forwarded-For names the
 * client address each test plays from.
 */
describe('logins and registrations: limits that hold across gateway replicas', () => {
  const stack = useAccountsStack({
    TRUST_PROXY: 'loopback',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '10',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '10',
    LOGIN_FAILURE_WINDOW_S: String(WINDOW_S),
    REGISTER_MAX_PER_WINDOW: '4',
  });
  let replicas: string[] = [];

  beforeAll(async () => {
    replicas = [stack().baseUrl, (await stack().startGatewayReplica()).baseUrl];
  });

  let addresses = 0;
  /** A client address no other test uses. */
  const newAddress = () => `10.0.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

  const login = (body: { email: string; password: string }, address: string, replica = 0) =>
    stack().call<ErrorBody & { token: string }>('POST', '/api/users/login', {
      body,
      headers: { 'x-forwarded-for': address },
      baseUrl: replicas[replica % replicas.length],
    });

  async function registered(address = newAddress()) {
    const account = newAccount();
    const res = await stack().call('POST', '/api/users/', {
      body: account,
      headers: { 'x-forwarded-for': address },
    });
    expect(res.status).toBe(201);
    return account;
  }

  it('judges exactly 10 of 40 parallel wrong logins on one account spread over two replicas', async () => {
    const account = await registered();
    const wrong = { email: account.email, password: 'Wrong98765' };
    // Every guess from its own address, so only the account's limit applies.
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => login(wrong, newAddress(), i)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    for (const res of results.filter((r) => r.status === 400))
      expect(res.body.message).toBe(USER_MESSAGES.badCredentials);
    for (const res of results.filter((r) => r.status === 429)) expectRateLimited(res, WINDOW_S);

    // The right password waits too, on either replica, whatever the address or the e-mail's case.
    for (const replica of [0, 1]) {
      const res = await login(
        { email: account.email.toUpperCase(), password: account.password },
        newAddress(),
        replica,
      );
      expectRateLimited(res, WINDOW_S);
    }
  });

  it('stops an address after 10 failed logins on any accounts, the right password included', async () => {
    const address = newAddress();
    const account = await registered();
    for (let i = 0; i < 10; i++) {
      const res = await login({ email: `nobody${i}${account.email}`, password: 'Wrong98765' }, address, i);
      expect(res.status).toBe(400);
    }
    for (const replica of [0, 1]) {
      expectRateLimited(
        await login({ email: account.email, password: account.password }, address, replica),
        WINDOW_S,
      );
    }
    // The account itself is not limited: from another address it logs in.
    expect((await login({ email: account.email, password: account.password }, newAddress())).status).toBe(
      200,
    );
  });

  it('counts a login that breaks SPEC §5 as a failed one: its account, then the right password, wait', async () => {
    const account = await registered();
    // A password with a symbol (SPEC §5 refuses it before any account is looked up).
    const malformed = { email: account.email, password: 'wrong-pass!' };
    for (let i = 0; i < 10; i++) {
      const res = await login(malformed, newAddress(), i);
      expect(res.status).toBe(400);
    }
    expectRateLimited(
      await login({ email: account.email, password: account.password }, newAddress()),
      WINDOW_S,
    );
    // An attempt that names no e-mail counts on its address.
    const address = newAddress();
    for (let i = 0; i < 10; i++)
      expect((await login({ password: 'x' } as never, address, i)).status).toBe(400);
    const other = await registered();
    expectRateLimited(await login({ email: other.email, password: other.password }, address), WINDOW_S);
  });

  it('counts an IPv6 client by its /56: rotating through its addresses does not reset the count', async () => {
    const account = await registered();
    // Ten guesses, each from another address of one subscriber's 2001:db8:42:ab00::/56.
    for (let i = 0; i < 10; i++) {
      const address = `2001:db8:42:ab${i.toString(16).padStart(2, '0')}:${i}::${i + 1}`;
      const res = await login({ email: `nobody${i}${account.email}`, password: 'Wrong98765' }, address, i);
      expect(res.status).toBe(400);
    }
    const right = { email: account.email, password: account.password };
    expectRateLimited(await login(right, '2001:db8:42:abff:dead::beef', 1), WINDOW_S);
    expectRateLimited(await login(right, '2001:db8:42:ab00::1', 0), WINDOW_S);
    // The next /56 is another subscriber.
    expect((await login(right, '2001:db8:42:ac00::1')).status).toBe(200);
  });

  it("clears the account's count on success, but not the address's", async () => {
    const address = newAddress();
    const account = await registered();
    const wrong = { email: account.email, password: 'Wrong98765' };
    const right = { email: account.email, password: account.password };
    for (let i = 0; i < 9; i++) expect((await login(wrong, address, i)).status).toBe(400);
    expect((await login(right, address, 1)).status).toBe(200);
    // The address now holds 9 failures: one more wrong guess is judged, then it waits.
    expect((await login(wrong, address, 0)).status).toBe(400);
    expectRateLimited(await login(right, address, 1), WINDOW_S);
    // The account holds 1 failure since its success: 9 more from elsewhere are still judged.
    for (let i = 0; i < 9; i++) expect((await login(wrong, newAddress(), i)).status).toBe(400);
    expectRateLimited(await login(right, newAddress()), WINDOW_S);
  });

  it('counts no attempt when auth does not answer', async () => {
    const address = newAddress();
    const account = await registered();
    await stack().stopAuth();
    try {
      for (let i = 0; i < 12; i++) {
        const res = await login({ email: account.email, password: 'Wrong98765' }, address, i);
        expect(res.status).toBe(503);
      }
    } finally {
      await stack().startAuth();
    }
    expect((await login({ email: account.email, password: account.password }, address)).status).toBe(200);
  });

  it('allows REGISTER_MAX_PER_WINDOW registrations per address across both replicas together', async () => {
    const address = newAddress();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stack().call('POST', '/api/users/', {
          body: newAccount(),
          headers: { 'x-forwarded-for': address },
          baseUrl: replicas[i % 2],
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429, 429, 429]);
  });
});
