import { USER_MESSAGES } from '@oasis198/contracts';
import { newAccount, useAccountsStack } from './testing/accounts-stack';
import { expectRateLimited } from './testing/rate-limited';

interface Answer {
  message: string;
  code: string;
  token: string;
}

const MINUTE_S = 60;
const HOUR_S = 3600;

/**
 * Per-user and per-address limits on account work (DECISIONS "Fair play"), with their default
 * numbers: successful logins, password checks and hashes, account edits. Clients come from
 * 127.0.0.1, a trusted proxy, so X-Forwarded-For names the address each test plays from.
 */
describe('accounts: limits on logins, password work and account edits', () => {
  const stack = useAccountsStack({
    TRUST_PROXY: 'loopback',
    LOGIN_SUCCESSES_PER_MINUTE: '10',
    PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: '10',
    PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: '30',
    ACCOUNT_EDITS_PER_HOUR: '10',
    // Low, so that a test can reach it with the few tokens the login limits let it have.
    LOGOUTS_PER_MINUTE: '2',
    REGISTER_MAX_PER_WINDOW: '3',
  });

  let addresses = 0;
  /** A client address no other test uses. */
  const newAddress = () => `10.1.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

  const call = (method: string, path: string, address: string, body?: unknown, token?: string) =>
    stack().call<Answer>(method, path, { body, token, headers: { 'x-forwarded-for': address } });
  const login = (account: { email: string; password: string }, address = newAddress()) =>
    call('POST', '/api/users/login', address, { email: account.email, password: account.password });

  async function registered() {
    const account = newAccount();
    const res = await call('POST', '/api/users/', newAddress(), account);
    expect(res.status).toBe(201);
    return { ...account, token: res.body.token };
  }

  it("stops a loop of one account's logins after 10 password checks a minute, the registration's included", async () => {
    const account = await registered();
    // From a new address each time, so only the account's limits apply.
    for (let i = 0; i < 9; i++) expect((await login(account)).status).toBe(200);
    const over = await login(account);
    expectRateLimited(over, MINUTE_S);
    // Another account is not affected.
    const other = await registered();
    expect((await login(other)).status).toBe(200);
  });

  it('allows 30 password checks a minute from one address, on any accounts', async () => {
    const address = newAddress();
    const accounts = [];
    for (let i = 0; i < 31; i++) accounts.push(await registered());
    for (const account of accounts.slice(0, 30)) expect((await login(account, address)).status).toBe(200);
    const last = accounts[30] as (typeof accounts)[number];
    expectRateLimited(await login(last, address), MINUTE_S);
    expect((await login(last)).status).toBe(200);
  });

  it('allows 10 account edits an hour per user, e-mail changes to a taken e-mail included', async () => {
    const user = await registered();
    const holder = await registered();
    for (let i = 0; i < 10; i++) {
      // From a new address each time: an e-mail change also counts on the address's registrations.
      const res = await call('PATCH', '/api/users/edit', newAddress(), { email: holder.email }, user.token);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(USER_MESSAGES.emailTaken);
    }
    const over = await call('PATCH', '/api/users/edit', newAddress(), { name: 'Renamed1' }, user.token);
    expectRateLimited(over, HOUR_S);
    // The other user's edits are their own.
    const rename = await call('PATCH', '/api/users/edit', newAddress(), { name: 'Renamed2' }, holder.token);
    expect(rename.status).toBe(200);
  });

  it("counts e-mail changes on the address's registrations: the e-mail oracle costs what registering does", async () => {
    const address = newAddress();
    const users = [await registered(), await registered()];
    const holder = await registered();
    const statuses: number[] = [];
    for (const user of users) {
      for (let i = 0; i < 2; i++) {
        const res = await call('PATCH', '/api/users/edit', address, { email: holder.email }, user.token);
        statuses.push(res.status);
      }
    }
    expect(statuses).toEqual([409, 409, 409, 429]);
    expectRateLimited(await call('POST', '/api/users/', address, newAccount()), HOUR_S);
  });

  it('allows LOGOUTS_PER_MINUTE logouts per user', async () => {
    const account = await registered();
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await login(account);
      expect(res.status).toBe(200);
      tokens.push(res.body.token);
    }
    const statuses: number[] = [];
    for (const token of tokens)
      statuses.push((await call('POST', '/api/users/logout', newAddress(), undefined, token)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
