import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, COMMON_MESSAGES, rateLimitedMessage } from '@oasis198/contracts';
import { loadConfig, MemoryStore, type VersionedStore } from '@oasis198/service-kit';
import { of } from 'rxjs';
import { type GatewayConfig, gatewayEnv } from '../config';
import {
  AccountEditThrottle,
  gatewayLimitRules,
  GatewayLimits,
  LimitPerUser,
  LoginThrottle,
  PasswordResetThrottle,
  PerUserLimitInterceptor,
  type PerUserLimitName,
  RegisterThrottle,
} from './rate-limit';
import { testSigningKeys } from '@oasis198/testing';

const config = {
  LOGIN_MAX_FAILURES_PER_ACCOUNT: 3,
  LOGIN_MAX_FAILURES_PER_ADDRESS: 5,
  LOGIN_FAILURE_WINDOW_S: 60,
  REGISTER_MAX_PER_WINDOW: 2,
  REGISTER_WINDOW_S: 60,
  ROOM_CREATES_PER_MINUTE: 2,
  ROOM_LEAVES_PER_MINUTE: 2,
  ROOM_EDITS_PER_SECOND: 2,
  REWARD_WRITES_PER_MINUTE: 2,
  LOGIN_SUCCESSES_PER_MINUTE: 100,
  LOGOUTS_PER_MINUTE: 2,
  ACCOUNT_EDITS_PER_HOUR: 2,
  PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: 100,
  PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: 100,
  FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: 10,
  RESET_MAILS_PER_ACCOUNT_PER_HOUR: 3,
} as GatewayConfig;

let now = 0;
/** A MemoryStore that tells which keys were ever written (the size of the KV bucket). */
class KeyCountingStore extends MemoryStore {
  readonly keys = new Set<string>();
  override write(key: string, value: Uint8Array, expected: number) {
    this.keys.add(key);
    return super.write(key, value, expected);
  }
}

/** Two gateway replicas: their own limit objects (and remembered revisions), one shared store. */
function replicas(overrides: Partial<GatewayConfig> = {}, store: VersionedStore = new MemoryStore()) {
  return [0, 1].map(() => GatewayLimits.on(store, { ...config, ...overrides }, { now: () => now }));
}

const refused = () => Promise.reject(new AppError('VALIDATION', 'Invalid e-mail or password.'));
const down = () => Promise.reject(new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable));
const ok = async () => 'token';

beforeEach(() => {
  now = 1_000_000;
});

describe('gateway limits', () => {
  it('default to the numbers of DECISIONS "Fair play"', () => {
    const rules = gatewayLimitRules(
      loadConfig(gatewayEnv, {
        NATS_URL: 'nats://127.0.0.1:4222',
        JWT_PUBLIC_KEY: testSigningKeys().publicKey,
      }),
    );
    expect(rules).toEqual({
      loginAccount: { max: 10, windowMs: 15 * 60_000 },
      loginAddress: { max: 10, windowMs: 15 * 60_000 },
      register: { max: 20, windowMs: 3_600_000 },
      roomCreates: { max: 10, windowMs: 60_000 },
      roomLeaves: { max: 20, windowMs: 60_000 },
      roomEdits: { max: 10, windowMs: 1000 },
      rewardWrites: { max: 10, windowMs: 60_000 },
      loginSuccesses: { max: 10, windowMs: 60_000 },
      logouts: { max: 10, windowMs: 60_000 },
      accountEdits: { max: 10, windowMs: 3_600_000 },
      passwordAccount: { max: 10, windowMs: 60_000 },
      passwordAddress: { max: 30, windowMs: 60_000 },
      forgotAddress: { max: 10, windowMs: 3_600_000 },
      resetMails: { max: 3, windowMs: 3_600_000 },
    });
    expect(
      loadConfig(gatewayEnv, {
        NATS_URL: 'nats://127.0.0.1:4222',
        JWT_PUBLIC_KEY: testSigningKeys().publicKey,
      }).PUSH_STREAMS_PER_ADDRESS,
    ).toBe(20);
    expect(() =>
      loadConfig(gatewayEnv, {
        NATS_URL: 'nats://127.0.0.1:4222',
        JWT_PUBLIC_KEY: testSigningKeys().publicKey,
        ROOM_EDITS_PER_SECOND: '0',
      }),
    ).toThrow(/ROOM_EDITS_PER_SECOND/);
  });
});

describe('LoginThrottle', () => {
  it('reserves before judging: of 40 parallel guesses on two replicas, auth judges only the limit', async () => {
    const [a, b] = replicas().map((limits) => new LoginThrottle(limits));
    const login = jest.fn(refused);
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b)?.attempt(`10.0.0.${i}`, 'victim@x.com', login)),
    );
    expect(login).toHaveBeenCalledTimes(3);
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as AppError).code : 'ok'));
    expect(codes.filter((c) => c === 'VALIDATION')).toHaveLength(3);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(37);
  });

  it('answers 429 with the rest of the window to every login of a limited account, without asking auth', async () => {
    const [limits] = replicas();
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 3; i++)
      await expect(throttle.attempt(`ip${i}`, ' A@x.com', refused)).rejects.toThrow();
    now += 20_000;
    const login = jest.fn(ok);
    await expect(throttle.attempt('ip9', 'a@X.com ', login)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: rateLimitedMessage(40),
      retryAfterS: 40,
    });
    expect(login).not.toHaveBeenCalled();
    await expect(throttle.attempt('ip9', 'b@x.com', login)).resolves.toBe('token');
    now += 40_000;
    await expect(throttle.attempt('ip9', 'a@x.com', login)).resolves.toBe('token');
  });

  it('limits an address across accounts, and answers the longer wait when both are limited', async () => {
    const [limits] = replicas();
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 3; i++) await throttle.attempt('ip', 'a@x.com', refused).catch(() => undefined);
    now += 10_000;
    for (let i = 0; i < 2; i++) await throttle.attempt('ip', `${i}@x.com`, refused).catch(() => undefined);
    // The address (window from 0 s, 50 s left) and the account (from 0 s) are both full.
    await expect(throttle.attempt('ip', 'c@x.com', ok)).rejects.toMatchObject({ retryAfterS: 50 });
    await expect(throttle.attempt('other', 'c@x.com', ok)).resolves.toBe('token');
  });

  it("clears the account's count on success and gives back that attempt on the address only", async () => {
    const [limits] = replicas();
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 2; i++) await throttle.attempt('ip', 'a@x.com', refused).catch(() => undefined);
    await throttle.attempt('ip', 'a@x.com', ok);
    expect((await limits?.get('loginAddress').reserve('ip'))?.count).toBe(3); // 2 failures + this probe
    expect((await limits?.get('loginAccount').reserve('a@x.com'))?.count).toBe(1);
  });

  it('counts a login that breaks SPEC §5, on the address alone when it names no e-mail', async () => {
    const [limits] = replicas();
    const throttle = new LoginThrottle(limits as GatewayLimits);
    const malformed = () => Promise.reject(new AppError('VALIDATION', 'Please enter a valid email address.'));
    for (let i = 0; i < 3; i++) await throttle.attempt('ip', 'a@x.com', malformed).catch(() => undefined);
    await expect(throttle.attempt('ip2', 'a@x.com', ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    for (let i = 0; i < 2; i++) await throttle.attempt('ip', undefined, malformed).catch(() => undefined);
    await expect(throttle.attempt('ip', 'b@x.com', ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect((await limits?.get('loginAccount').reserve('b@x.com'))?.count).toBe(1);
  });

  it('gives both attempts back when auth does not answer', async () => {
    const [limits] = replicas();
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 10; i++) {
      await expect(throttle.attempt('ip', 'a@x.com', down)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    }
    await expect(throttle.attempt('ip', 'a@x.com', ok)).resolves.toBe('token');
    expect((await limits?.get('loginAddress').reserve('ip'))?.count).toBe(1);
  });
});

describe('LoginThrottle: the address first', () => {
  it('writes no key for the e-mails of a refused address: a loop of made-up e-mails stops adding keys', async () => {
    const store = new KeyCountingStore();
    const [limits] = replicas({}, store) as [GatewayLimits];
    const throttle = new LoginThrottle(limits);
    for (let i = 0; i < 5; i++)
      await throttle.attempt('ip', `nobody${i}@x.com`, refused).catch(() => undefined);
    const afterLimit = store.keys.size;
    const login = jest.fn(refused);
    for (let i = 5; i < 100; i++) {
      await expect(throttle.attempt('ip', `nobody${i}@x.com`, login)).rejects.toMatchObject({
        code: 'RATE_LIMITED',
      });
    }
    expect(login).not.toHaveBeenCalled();
    expect(store.keys.size).toBe(afterLimit);
  });

  it("gives the address's attempt back when the account is refused", async () => {
    const [limits] = replicas() as [GatewayLimits];
    const throttle = new LoginThrottle(limits);
    for (let i = 0; i < 3; i++) await throttle.attempt(`ip${i}`, 'a@x.com', refused).catch(() => undefined);
    for (let i = 0; i < 10; i++) {
      await expect(throttle.attempt('ip', 'a@x.com', ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    }
    expect((await limits.get('loginAddress').reserve('ip')).count).toBe(1);
    expect((await limits.get('passwordAddress').reserve('ip')).count).toBe(1);
  });
});

describe('LoginThrottle: successes and password checks', () => {
  it('allows LOGIN_SUCCESSES_PER_MINUTE successful logins per account, then 429 until the minute ends', async () => {
    const [a, b] = replicas({ LOGIN_SUCCESSES_PER_MINUTE: 3 }).map((limits) => new LoginThrottle(limits));
    for (let i = 0; i < 3; i++)
      await expect((i % 2 ? a : b)?.attempt(`ip${i}`, 'a@x.com', ok)).resolves.toBe('token');
    now += 15_000;
    const login = jest.fn(ok);
    await expect(a?.attempt('ip9', 'A@x.com', login)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterS: 45,
    });
    expect(login).not.toHaveBeenCalled();
    await expect(b?.attempt('ip9', 'b@x.com', login)).resolves.toBe('token');
    now += 45_000;
    await expect(a?.attempt('ip9', 'a@x.com', login)).resolves.toBe('token');
  });

  it('counts a refused login on the password checks but not on the successes', async () => {
    const [limits] = replicas({ LOGIN_SUCCESSES_PER_MINUTE: 2, LOGIN_MAX_FAILURES_PER_ACCOUNT: 100 });
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 5; i++) await throttle.attempt(`ip${i}`, 'a@x.com', refused).catch(() => undefined);
    for (let i = 0; i < 2; i++) await expect(throttle.attempt('ip', 'a@x.com', ok)).resolves.toBe('token');
    await expect(throttle.attempt('ip', 'a@x.com', ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect((await limits?.get('passwordAccount').reserve('a@x.com'))?.count).toBe(8); // 5 + 2 + this probe
  });

  it('allows PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT logins per account, successful ones included', async () => {
    const [limits] = replicas({ PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: 4 });
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 4; i++)
      await expect(throttle.attempt(`ip${i}`, 'a@x.com', ok)).resolves.toBe('token');
    await expect(throttle.attempt('ip9', 'a@x.com', ok)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterS: 60,
    });
  });

  it('allows PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS logins per address, on any accounts', async () => {
    const [limits] = replicas({ PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: 4 });
    const throttle = new LoginThrottle(limits as GatewayLimits);
    for (let i = 0; i < 4; i++) await expect(throttle.attempt('ip', `${i}@x.com`, ok)).resolves.toBe('token');
    await expect(throttle.attempt('ip', 'z@x.com', ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(throttle.attempt('other', 'z@x.com', ok)).resolves.toBe('token');
  });
});

describe('RegisterThrottle', () => {
  it('counts every registration per address across replicas, successful or not', async () => {
    const [a, b] = replicas().map((limits) => new RegisterThrottle(limits));
    await a?.attempt('ip', 'a@x.com', async () => 'created');
    await b
      ?.attempt('ip', 'b@x.com', () => Promise.reject(new AppError('CONFLICT', 'taken')))
      .catch(() => undefined);
    await expect(a?.attempt('ip', 'c@x.com', async () => 'created')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    await expect(b?.attempt('other', 'c@x.com', async () => 'created')).resolves.toBe('created');
  });

  it('counts a registration as a password hash on its address and its e-mail', async () => {
    const [limits] = replicas({ REGISTER_MAX_PER_WINDOW: 100, PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: 2 });
    const throttle = new RegisterThrottle(limits as GatewayLimits);
    const register = jest.fn(async () => 'created');
    await throttle.attempt('ip1', 'a@x.com', register);
    await throttle.attempt('ip2', ' A@x.com', register);
    await expect(throttle.attempt('ip3', 'a@x.com', register)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(register).toHaveBeenCalledTimes(2);
    expect((await limits?.get('passwordAddress').reserve('ip1'))?.count).toBe(2);
  });
});

describe('AccountEditThrottle', () => {
  it('counts a password change as a password hash on the address and the user', async () => {
    const [limits] = replicas({ PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: 2 });
    const edits = new AccountEditThrottle(limits as GatewayLimits);
    await edits.passwordChange('ip1', 'u1');
    await edits.passwordChange('ip2', 'u1');
    await expect(edits.passwordChange('ip3', 'u1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(edits.passwordChange('ip3', 'u2')).resolves.toBeUndefined();
    // The refused change gave its attempt on the address back.
    expect((await limits?.get('passwordAddress').reserve('ip3'))?.count).toBe(2);
  });

  it("counts an e-mail change on the address's registrations", async () => {
    const [limits] = replicas();
    const edits = new AccountEditThrottle(limits as GatewayLimits);
    const register = new RegisterThrottle(limits as GatewayLimits);
    await edits.emailChange('ip');
    await register.attempt('ip', 'a@x.com', async () => 'created');
    await expect(edits.emailChange('ip')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(register.attempt('ip', 'b@x.com', async () => 'created')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
  });
});

describe('PasswordResetThrottle', () => {
  it('mails an e-mail 3 times an hour across replicas, then answers alike and mails nothing', async () => {
    const [a, b] = replicas().map((limits) => new PasswordResetThrottle(limits));
    const send = jest.fn(async () => ({ message: 'sent' }));
    for (const [i, throttle] of [a, b, a, b, a].entries()) {
      await expect(throttle?.forgot(`ip${i}`, i % 2 ? 'A@x.com ' : 'a@x.com', send)).resolves.toBeUndefined();
    }
    expect(send).toHaveBeenCalledTimes(3);
    await b?.forgot('ip9', 'b@x.com', send);
    expect(send).toHaveBeenCalledTimes(4);
    now += 3_600_000;
    await a?.forgot('ip0', 'a@x.com', send);
    expect(send).toHaveBeenCalledTimes(5);
  });

  it('counts every request on its address: the 11th in an hour is 429, whatever the e-mail', async () => {
    const [a, b] = replicas().map((limits) => new PasswordResetThrottle(limits));
    const send = jest.fn(async () => ({ message: 'sent' }));
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b)?.forgot('ip', `u${i}@x.com`, send);
    await expect(a?.forgot('ip', 'new@x.com', send)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(send).toHaveBeenCalledTimes(10);
    await expect(a?.forgot('other', 'new@x.com', send)).resolves.toBeUndefined();
  });

  it('gives the mail back when auth does not answer', async () => {
    const [limits] = replicas();
    const throttle = new PasswordResetThrottle(limits as GatewayLimits);
    for (let i = 0; i < 3; i++) await expect(throttle.forgot('ip', 'a@x.com', down)).rejects.toThrow();
    const send = jest.fn(async () => ({ message: 'sent' }));
    await throttle.forgot('ip', 'a@x.com', send);
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('LimitPerUser', () => {
  class Routes {
    @LimitPerUser(
      (request) => ((request.body as { leave?: boolean }).leave ? 'roomLeaves' : 'roomEdits'),
      'x',
    )
    edit(): string {
      return 'edited';
    }

    @LimitPerUser('rewardWrites', 'x')
    write(): string {
      return 'written';
    }

    @LimitPerUser('logouts', 'x')
    logout(): string {
      return 'out';
    }

    @LimitPerUser('accountEdits', 'x')
    editAccount(): string {
      return 'edited';
    }
  }

  function call(
    limits: GatewayLimits,
    handler: keyof Routes,
    caller: string | undefined,
    body: unknown = {},
  ) {
    const interceptor = new PerUserLimitInterceptor(new Reflector(), limits);
    const request = { body, caller: caller ? { userId: caller } : undefined };
    const context = {
      getHandler: () => Routes.prototype[handler],
      switchToHttp: () => ({ getRequest: () => request }),
    } as unknown as ExecutionContext;
    const next: CallHandler = { handle: jest.fn(() => of('forwarded')) };
    return { result: interceptor.intercept(context, next), next };
  }

  it('counts calls per user against the limit the route names, before forwarding', async () => {
    const [a, b] = replicas() as [GatewayLimits, GatewayLimits];
    for (const limits of [a, b]) await call(limits, 'write', 'u1').result;
    const over = call(a, 'write', 'u1');
    await expect(over.result).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterS: 60 });
    expect(over.next.handle).not.toHaveBeenCalled();
    await expect(call(b, 'write', 'u2').result).resolves.toBeDefined();
  });

  it('counts logouts a minute and account edits an hour per user', async () => {
    const [limits] = replicas() as [GatewayLimits];
    for (let i = 0; i < 2; i++) await call(limits, 'logout', 'u1').result;
    await expect(call(limits, 'logout', 'u1').result).rejects.toMatchObject({ retryAfterS: 60 });
    for (let i = 0; i < 2; i++) await call(limits, 'editAccount', 'u1').result;
    now += 60_000;
    await expect(call(limits, 'editAccount', 'u1').result).rejects.toMatchObject({ retryAfterS: 3540 });
    await expect(call(limits, 'logout', 'u1').result).resolves.toBeDefined();
  });

  it('lets the request choose the limit (leaves and moves share a route), and needs a caller', async () => {
    const [limits] = replicas() as [GatewayLimits];
    const pick = async (leave: boolean): Promise<PerUserLimitName | 'limited'> =>
      call(limits, 'edit', 'u1', { leave }).result.then(
        () => (leave ? 'roomLeaves' : 'roomEdits'),
        () => 'limited',
      );
    expect([await pick(true), await pick(true), await pick(true)]).toEqual([
      'roomLeaves',
      'roomLeaves',
      'limited',
    ]);
    expect([await pick(false), await pick(false), await pick(false)]).toEqual([
      'roomEdits',
      'roomEdits',
      'limited',
    ]);
    now += 1000;
    expect(await pick(false)).toBe('roomEdits');
    await expect(call(limits, 'edit', undefined).result).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
