import { COMMON_MESSAGES, USER_MESSAGES } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { SignJWT } from 'jose';
import { newSigningKeys } from '@oasis198/testing';
import { createPrivateKey } from 'node:crypto';
import { newAccount, TEST_JWT_KEYS, useAccountsStack } from './testing/accounts-stack';

interface AuthUserBody {
  _id: string;
  name: string;
  token: string;
}
interface ErrorBody {
  message: string;
  code: string;
  details?: Record<string, string>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

describe('users calls through the gateway (SPEC §7)', () => {
  const stack = useAccountsStack();

  const register = (body: unknown) => stack().call<AuthUserBody & ErrorBody>('POST', '/api/users/', { body });
  const login = (body: unknown) =>
    stack().call<AuthUserBody & ErrorBody>('POST', '/api/users/login', { body });
  const edit = (token: string | undefined, body: unknown) =>
    stack().call<{ user: AuthUserBody & { email: string } } & ErrorBody>('PATCH', '/api/users/edit', {
      body,
      token,
    });

  async function registered() {
    const account = newAccount();
    const res = await register(account);
    expect(res.status).toBe(201);
    return { ...account, id: res.body._id, token: res.body.token };
  }

  describe('POST /api/users/ (register)', () => {
    it('creates the account and answers { _id, name, token } and nothing else', async () => {
      const account = newAccount();
      const res = await register(account);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['_id', 'name', 'token']);
      expect(res.body.name).toBe(account.name);
      expect(res.body._id).toMatch(/^[0-9a-f]{24}$/);
      const header = JSON.parse(Buffer.from(res.body.token.split('.')[0] ?? '', 'base64url').toString());
      expect(header.alg).toBe('ES256');
      const claims = claimsOf(res.body.token);
      expect(claims).toMatchObject({ sub: res.body._id, name: account.name });
      expect(typeof claims['jti']).toBe('string');
      // iat carries milliseconds; exp and auth_time are whole seconds.
      expect(claims['exp']).toBe(Math.floor(claims['iat'] as number) + 7 * 24 * 3600);
      expect(claims['auth_time']).toBe(Math.floor(claims['iat'] as number));
      expect(JSON.stringify(res.body)).not.toMatch(/argon2|passwordHash/);
    });

    it.each([
      ['a name of 3 characters', { name: 'abc' }, 'name', MESSAGES.username],
      ['a name of 17 characters', { name: 'a'.repeat(17) }, 'name', MESSAGES.username],
      ['a name with a symbol', { name: 'bad_name' }, 'name', MESSAGES.username],
      ['a missing name', { name: undefined }, 'name', MESSAGES.username],
      ['an e-mail without @', { email: 'nobody.example.com' }, 'email', MESSAGES.email],
      ['an e-mail of 33 characters', { email: `${'a'.repeat(21)}@example.com` }, 'email', MESSAGES.email],
      ['an e-mail of 5 characters', { email: 'a@b.c' }, 'email', MESSAGES.email],
      [
        'a password of 5 characters',
        { password: 'ab1cd', confirmedPassword: 'ab1cd' },
        'password',
        MESSAGES.password,
      ],
      [
        'a password of 17 characters',
        { password: 'a1'.repeat(8) + 'x', confirmedPassword: 'a1'.repeat(8) + 'x' },
        'password',
        MESSAGES.password,
      ],
      [
        'a password with a symbol',
        { password: 'abc!1234', confirmedPassword: 'abc!1234' },
        'password',
        MESSAGES.password,
      ],
      [
        'a confirmation that differs',
        { confirmedPassword: 'Different123' },
        'confirmedPassword',
        MESSAGES.confirmedPassword,
      ],
      ['an operator instead of an e-mail', { email: { $gt: '' } }, 'email', MESSAGES.email],
      ['a number instead of a name', { name: 12345 }, 'name', MESSAGES.username],
    ])('refuses %s with 400 and SPEC message', async (_what, change, field, message) => {
      const res = await register({ ...newAccount(), ...change });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
      expect(res.body.code).toBe('VALIDATION');
      expect(res.body.details?.[field]).toBe(message);
    });

    it('names every invalid field at once', async () => {
      const res = await register({ name: 'x', email: 'y', password: 'z', confirmedPassword: 'w' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({
        name: MESSAGES.username,
        email: MESSAGES.email,
        password: MESSAGES.password,
        confirmedPassword: MESSAGES.confirmedPassword,
      });
    });

    it('refuses an unknown field (whitelisting) with 400', async () => {
      const res = await register({ ...newAccount(), isAdmin: true });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('property isAdmin should not exist');
    });

    it('refuses a common password with 400, whatever its case', async () => {
      for (const password of ['password1', 'PassWord1', 'qwerty123']) {
        const res = await register({ ...newAccount(), password, confirmedPassword: password });
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(USER_MESSAGES.commonPassword);
      }
    });

    it("refuses a taken e-mail with 409 'oops, user already exists', in any case", async () => {
      const first = await registered();
      for (const email of [first.email, first.email.toUpperCase()]) {
        const res = await register({ ...newAccount(), email });
        expect(res.status).toBe(409);
        expect(res.body.message).toBe(USER_MESSAGES.alreadyExists);
      }
    });

    it('lets exactly one of several racing registrations of one e-mail through', async () => {
      const base = newAccount();
      const variants = [
        base.email,
        base.email.toUpperCase(),
        `X${base.email}`.slice(1),
        base.email,
        base.email,
      ];
      const results = await Promise.all(variants.map((email) => register({ ...newAccount(), email })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const res of results.filter((r) => r.status === 409)) {
        expect(res.body.message).toBe(USER_MESSAGES.alreadyExists);
      }
    });

    it('answers 400 with a friendly message for a body that is not JSON', async () => {
      const res = await stack().call<ErrorBody>('POST', '/api/users/', { rawBody: '{"name": "abc",' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The request body is not valid JSON.', code: 'VALIDATION' });
    });
  });

  describe('POST /api/users/login', () => {
    it('answers { _id, name, token } for the right e-mail (any case) and password', async () => {
      const user = await registered();
      for (const email of [user.email, user.email.toUpperCase()]) {
        const res = await login({ email, password: user.password });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['_id', 'name', 'token']);
        expect(res.body).toMatchObject({ _id: user.id, name: user.name });
        expect(claimsOf(res.body.token)['jti']).not.toBe(claimsOf(user.token)['jti']);
      }
    });

    it('answers 400 with one message for a wrong password or an unknown e-mail', async () => {
      const user = await registered();
      const wrongPassword = await login({ email: user.email, password: 'Wrong12345' });
      const unknownEmail = await login({ email: `x${user.email}`, password: user.password });
      for (const res of [wrongPassword, unknownEmail]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ message: USER_MESSAGES.badCredentials, code: 'VALIDATION' });
      }
    });

    it.each([
      ['an invalid e-mail', { email: 'not-an-email', password: 'Abcdef123' }, MESSAGES.email],
      ['an operator as e-mail', { email: { $gt: '' }, password: 'Abcdef123' }, MESSAGES.email],
      [
        'an operator as password',
        { email: 'someone@example.com', password: { $ne: null } },
        MESSAGES.password,
      ],
      ['a short password', { email: 'someone@example.com', password: 'abc' }, MESSAGES.password],
    ])('refuses %s with 400 and SPEC message', async (_what, body, message) => {
      const res = await login(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });
  });

  describe('PATCH /api/users/edit', () => {
    it('renames and answers { user: { _id, name, email, token } } with the caller token', async () => {
      const user = await registered();
      const res = await edit(user.token, { name: 'Renamed1' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: { _id: user.id, name: 'Renamed1', email: user.email, token: user.token },
      });
      const again = await login({ email: user.email, password: user.password });
      expect(again.body.name).toBe('Renamed1');
    });

    it('changes the e-mail; the old one no longer logs in; a taken one is 409', async () => {
      const user = await registered();
      const other = await registered();
      const email = `new${user.email}`;
      const res = await edit(user.token, { email });
      expect(res.status).toBe(200);
      expect(res.body.user.email).toBe(email);
      expect((await login({ email: user.email, password: user.password })).status).toBe(400);
      expect((await login({ email, password: user.password })).status).toBe(200);
      for (const taken of [other.email, other.email.toUpperCase()]) {
        const conflict = await edit(user.token, { email: taken });
        expect(conflict.status).toBe(409);
        expect(conflict.body.message).toBe(USER_MESSAGES.emailTaken);
      }
    });

    it("changes the password: the caller's token keeps working, every other token is refused", async () => {
      const user = await registered();
      const second = (await login({ email: user.email, password: user.password })).body.token;
      expect((await edit(second, { name: user.name })).status).toBe(200); // the second token works
      const res = await edit(user.token, { password: 'NewSecret77', confirmedPassword: 'NewSecret77' });
      expect(res.status).toBe(200);
      expect(res.body.user.token).toBe(user.token);
      expect((await edit(user.token, { name: 'StillMe1' })).status).toBe(200);
      const refused = await edit(second, { name: 'NotMe1' });
      expect(refused.status).toBe(401);
      expect(refused.body.message).toBe(COMMON_MESSAGES.invalidToken);
      expect((await login({ email: user.email, password: user.password })).status).toBe(400);
      expect((await login({ email: user.email, password: 'NewSecret77' })).status).toBe(200);
    });

    it.each([
      ['no field', {}, USER_MESSAGES.oneEditField],
      ['two fields', { name: 'Another1', email: 'another@example.com' }, USER_MESSAGES.oneEditField],
      ['an invalid name', { name: 'no!' }, MESSAGES.username],
      ['an invalid e-mail', { email: 'nope' }, MESSAGES.email],
      ['an invalid password', { password: 'a b' }, MESSAGES.password],
      ['a common password', { password: 'iloveyou' }, USER_MESSAGES.commonPassword],
      [
        'a confirmation that differs',
        { password: 'NewSecret77', confirmedPassword: 'Other12345' },
        MESSAGES.confirmedPassword,
      ],
      ['an operator', { email: { $gt: '' } }, MESSAGES.email],
      ['an unknown field', { points: 1000 }, 'property points should not exist'],
    ])('refuses %s with 400', async (_what, body, message) => {
      const user = await registered();
      const res = await edit(user.token, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });
  });

  describe('tokens', () => {
    const sign = (claims: Record<string, unknown>, privateKey = TEST_JWT_KEYS.privateKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(createPrivateKey(privateKey));
    /** HMAC with the public key as its secret: what a gateway that took any algorithm would accept. */
    const confused = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(TEST_JWT_KEYS.publicKey));

    it('refuses a missing token with 401', async () => {
      const res = await edit(undefined, { name: 'Nobody1' });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(COMMON_MESSAGES.unauthorized);
    });

    it('refuses forged, expired, alg none, other-algorithm and garbage tokens with 401', async () => {
      const user = await registered();
      const claims = claimsOf(user.token);
      const now = Math.floor(Date.now() / 1000);
      const forged = await sign({ ...claims, jti: 'forged' }, newSigningKeys().privateKey);
      const expired = await sign({ ...claims, jti: 'expired', iat: now - 100, exp: now - 10 });
      const hs256 = await confused({ ...claims, jti: 'hs256-public-key' });
      const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, jti: 'none' })}.`;
      const tampered = user.token.replace(/\.[^.]+\./, `.${b64url({ ...claims, sub: 'someone-else' })}.`);
      for (const token of [forged, expired, hs256, none, tampered, 'not-a-jwt']) {
        const res = await edit(token, { name: 'Hacker1' });
        expect(res.status).toBe(401);
        expect(res.body.message).toBe(COMMON_MESSAGES.invalidToken);
      }
      // A well-signed, unexpired token of the same user is fine (the key is right).
      const good = await sign({ ...claims, jti: 'good' });
      expect((await edit(good, { name: user.name })).status).toBe(200);
    });

    it('refuses well-signed tokens that lack a claim, carry a wrong one or are too long, with 401', async () => {
      const user = await registered();
      const claims = claimsOf(user.token);
      const without = (name: string) =>
        Object.fromEntries(Object.entries(claims).filter(([key]) => key !== name));
      const refused = await Promise.all([
        sign({ ...without('exp'), jti: 'no-exp' }), // signature libraries take it as never expiring
        sign({ ...without('iat'), jti: 'no-iat' }),
        sign({ ...claims, jti: 'text-auth-time', auth_time: '0' }),
        sign({ ...without('name'), jti: 'no-name' }),
        sign({ ...claims, jti: 'numeric-sub', sub: 42 }),
        sign({ ...claims, jti: 'other-iss', iss: 'someone-else' }),
        sign({ ...claims, jti: 'not-yet', nbf: Math.floor(Date.now() / 1000) + 600 }),
        sign({ ...claims, jti: 'too-long', padding: 'x'.repeat(4096) }),
        sign(without('jti')),
      ]);
      for (const token of refused) {
        const res = await edit(token, { name: user.name });
        expect([claimsOf(token)['jti'], res.status, res.body.message]).toEqual([
          claimsOf(token)['jti'],
          401,
          COMMON_MESSAGES.invalidToken,
        ]);
      }
    });

    it('asks a token whose login is older than REAUTH_WINDOW_S to log in again: 401 reauth_required, nothing changes', async () => {
      const user = await registered();
      const now = Date.now() / 1000;
      // As taken from a device: well-signed and never logged out, but its login was 11 minutes ago.
      const stolen = await sign({ ...claimsOf(user.token), jti: 'stolen', auth_time: Math.floor(now) - 660 });
      const attempts: [string, string, unknown][] = [
        ['PATCH', '/api/users/edit', { email: `thief.${user.email}` }],
        ['PATCH', '/api/users/edit', { password: 'Thief7Takes', confirmedPassword: 'Thief7Takes' }],
        ['DELETE', '/api/users/delete', undefined],
      ];
      for (const [method, path, body] of attempts) {
        const res = await stack().call<ErrorBody>(method, path, { token: stolen, body });
        expect([path, res.status, res.body]).toEqual([
          path,
          401,
          { code: 'reauth_required', message: COMMON_MESSAGES.reauthRequired },
        ]);
      }
      // Nothing changed: the owner logs in as before, and the stolen token still only renames.
      expect((await login({ email: user.email, password: user.password })).status).toBe(200);
      expect((await edit(user.token, { name: user.name })).status).toBe(200);
      expect((await edit(stolen, { name: 'Renamed7' })).status).toBe(200);
      // A fresh login passes the same calls.
      expect((await edit(user.token, { email: `new.${user.email}` })).status).toBe(200);
    });

    it('reads only "Bearer <token>": any other Authorization header counts as no token', async () => {
      const user = await registered();
      for (const authorization of [`Basic ${user.token}`, `Bearer ${user.token} extra`, 'Bearer', '']) {
        const res = await stack().call<ErrorBody>('PATCH', '/api/users/edit', {
          body: { name: user.name },
          headers: { authorization },
        });
        expect([authorization, res.status, res.body.message]).toEqual([
          authorization,
          401,
          COMMON_MESSAGES.unauthorized,
        ]);
      }
      const res = await stack().call('PATCH', '/api/users/edit', {
        body: { name: user.name },
        headers: { authorization: `  bearer   ${user.token}  ` },
      });
      expect(res.status).toBe(200);
    });

    it('lets visitors read whatever token they send: public routes ignore it', async () => {
      const user = await registered();
      expect((await stack().call('POST', '/api/users/logout', { token: user.token })).status).toBe(200);
      for (const token of [user.token, 'not-a-jwt']) {
        expect((await stack().call('GET', '/api/rewards/', { token })).status).toBe(200);
      }
    });
  });

  describe('POST /api/users/logout', () => {
    it('revokes the token it is called with; other sessions stay', async () => {
      const user = await registered();
      const other = (await login({ email: user.email, password: user.password })).body.token;
      const res = await stack().call('POST', '/api/users/logout', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: USER_MESSAGES.loggedOut });
      const after = await edit(user.token, { name: 'Again12' });
      expect(after.status).toBe(401);
      expect(after.body.message).toBe(COMMON_MESSAGES.invalidToken);
      expect((await stack().call('POST', '/api/users/logout', { token: user.token })).status).toBe(401);
      expect((await edit(other, { name: 'Again12' })).status).toBe(200);
    });

    it('refuses a missing token with 401', async () => {
      expect((await stack().call('POST', '/api/users/logout')).status).toBe(401);
    });
  });

  describe('DELETE /api/users/delete', () => {
    it('deletes the account: its tokens stop working, it cannot log in, its e-mail is free', async () => {
      const user = await registered();
      const other = (await login({ email: user.email, password: user.password })).body.token;
      const res = await stack().call('DELETE', '/api/users/delete', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: USER_MESSAGES.deleted });
      for (const token of [user.token, other]) {
        const after = await stack().call<ErrorBody>('DELETE', '/api/users/delete', { token });
        expect(after.status).toBe(401);
      }
      expect((await login({ email: user.email, password: user.password })).status).toBe(400);
      const again = await register({ ...newAccount(), email: user.email });
      expect(again.status).toBe(201);
      expect(again.body._id).not.toBe(user.id);
    });

    it('refuses a missing token with 401', async () => {
      expect((await stack().call('DELETE', '/api/users/delete')).status).toBe(401);
    });
  });

  it('publishes the API description at /api/docs', async () => {
    const res = await stack().call<{ paths: Record<string, unknown> }>('GET', '/api/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/users/login',
        '/api/users',
        '/api/users/edit',
        '/api/users/delete',
        '/api/users/logout',
      ]),
    );
  });
});
