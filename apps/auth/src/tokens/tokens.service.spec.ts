import { COMMON_MESSAGES } from '@oasis198/contracts';
import { newSigningKeys } from '@oasis198/testing';
import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { TokensService } from './tokens.service';

const KEYS = newSigningKeys();
const config = {
  JWT_PRIVATE_KEY: KEYS.privateKey,
  JWT_TTL_S: 3600,
  JWT_ISSUER: 'oasis198-auth',
  REAUTH_WINDOW_S: 600,
};
const subject = { userId: 'u1', name: 'alice1' };
const key = (pem = KEYS.privateKey) => createPrivateKey(pem);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('TokensService', () => {
  const tokens = new TokensService(config);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    sub: 'u1',
    jti: 'j1',
    name: 'alice1',
    iss: 'oasis198-auth',
    iat: now,
    exp: now + 60,
  };

  const refused = async (token: unknown) =>
    expect(tokens.verify(token)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: COMMON_MESSAGES.invalidToken,
    });

  it('signs ES256 tokens with sub, jti, name, issuer, expiry, issue time in ms and login time, and verifies them', async () => {
    const signed = await tokens.sign(subject, 1_700_000_000_123);
    const [header, payload] = signed.token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT' });
    expect(payload).toMatchObject({
      sub: 'u1',
      name: 'alice1',
      iss: 'oasis198-auth',
      iat: 1_700_000_000.123,
      auth_time: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect(payload.jti).toBe(signed.jti);
    const now = Date.now();
    const fresh = await tokens.sign(subject, now);
    expect(await tokens.verify(fresh.token)).toEqual({
      userId: 'u1',
      name: 'alice1',
      jti: fresh.jti,
      exp: fresh.exp,
      issuedAt: now,
      authTime: Math.floor(now / 1000),
    });
    expect((await tokens.sign(subject)).jti).not.toBe(fresh.jti);
  });

  it('asks for a recent login: within REAUTH_WINDOW_S of auth_time, else reauth_required', () => {
    const caller = { userId: 'u1', name: 'alice1', jti: 'j1', exp: now + 60 };
    const at = now * 1000;
    expect(() => tokens.assertRecentLogin({ ...caller, authTime: now - 600 }, at)).not.toThrow();
    for (const authTime of [now - 601, undefined]) {
      expect(() => tokens.assertRecentLogin({ ...caller, authTime }, at)).toThrow(
        expect.objectContaining({ code: 'reauth_required', message: COMMON_MESSAGES.reauthRequired }),
      );
    }
  });

  it('refuses an expired token', async () => {
    const expired = await tokens.sign(subject, Date.now() - 3601_000);
    await refused(expired.token);
  });

  it('refuses alg none, HS256 with the public key as secret, another key and a changed payload', async () => {
    await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`);
    // The public key is no secret: a token HMAC-signed with it must not pass.
    await refused(
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(KEYS.publicKey)),
    );
    await refused(
      await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(key(newSigningKeys().privateKey)),
    );
    const good = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(key());
    expect((await tokens.verify(good)).userId).toBe('u1');
    const [h, , s] = good.split('.');
    await refused(`${h}.${b64({ ...claims, sub: 'u2' })}.${s}`);
  });

  it('refuses another issuer and missing or mistyped claims', async () => {
    const sign = (c: Record<string, unknown>) =>
      new SignJWT(c).setProtectedHeader({ alg: 'ES256' }).sign(key());
    await refused(await sign({ ...claims, iss: 'someone-else' }));
    await refused(await sign({ ...claims, jti: undefined }));
    await refused(await sign({ ...claims, exp: undefined }));
    await refused(await sign({ ...claims, iat: undefined }));
    await refused(await sign({ ...claims, iat: '1' }));
    await refused(await sign({ ...claims, auth_time: '1' }));
    await refused(await sign({ ...claims, name: undefined }));
  });

  it('refuses what is not a token at all', async () => {
    for (const token of [undefined, '', 42, { $gt: '' }, 'a.b.c', 'x'.repeat(5000)]) await refused(token);
  });
});
