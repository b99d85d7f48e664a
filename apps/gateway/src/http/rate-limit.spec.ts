import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import type { GatewayConfig } from '../config';
import { AttemptCounter, LoginThrottle, RegisterThrottle } from './rate-limit';

const config = {
  LOGIN_MAX_FAILURES: 3,
  LOGIN_FAILURE_WINDOW_S: 60,
  REGISTER_MAX_PER_WINDOW: 2,
  REGISTER_WINDOW_S: 60,
} as GatewayConfig;

describe('AttemptCounter', () => {
  it('limits a key after max attempts within the window, and forgets them when it ends', () => {
    let now = 0;
    const counter = new AttemptCounter(2, 1000, () => now);
    counter.record('a');
    expect(counter.isLimited('a')).toBe(false);
    counter.record('a');
    expect(counter.isLimited('a')).toBe(true);
    expect(counter.isLimited('b')).toBe(false);
    now = 999;
    expect(counter.isLimited('a')).toBe(true);
    now = 1000;
    expect(counter.isLimited('a')).toBe(false);
    expect(counter.count('a')).toBe(0);
  });

  it('says how long a limited key waits: the rest of its window', () => {
    let now = 0;
    const counter = new AttemptCounter(1, 60_000, () => now);
    expect(counter.retryAfterMs('a')).toBe(0);
    expect(() => counter.assertAllowed('a')).not.toThrow();
    counter.record('a');
    now = 15_000;
    expect(counter.retryAfterMs('a')).toBe(45_000);
    expect(() => counter.assertAllowed('a')).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED', retryAfterS: 45 }),
    );
  });

  it('keeps at most maxKeys keys, dropping ended windows first, then the oldest', () => {
    let now = 0;
    const counter = new AttemptCounter(5, 100, () => now, 3);
    counter.record('old');
    now = 50;
    counter.record('k1');
    counter.record('k2');
    now = 120; // 'old' has ended, k1 and k2 have not
    counter.record('k3');
    expect(counter.size).toBe(3);
    expect(counter.count('k1')).toBe(1);
    counter.record('k4');
    expect(counter.size).toBe(3);
    expect(counter.count('k1')).toBe(0);
  });
});

describe('LoginThrottle', () => {
  const refused = () => Promise.reject(new AppError('VALIDATION', 'Invalid e-mail or password.'));

  it('answers 429 after LOGIN_MAX_FAILURES refusals for one address and e-mail, without asking auth', async () => {
    const throttle = new LoginThrottle(config);
    for (let i = 0; i < 3; i++)
      await expect(throttle.attempt('1.2.3.4', 'A@x.com', refused)).rejects.toMatchObject({
        code: 'VALIDATION',
      });
    const login = jest.fn(async () => 'token');
    await expect(throttle.attempt('1.2.3.4', 'a@X.com', login)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: COMMON_MESSAGES.rateLimited,
    });
    expect(login).not.toHaveBeenCalled();
    // Other e-mails and other addresses are not affected.
    await expect(throttle.attempt('1.2.3.4', 'b@x.com', login)).resolves.toBe('token');
    await expect(throttle.attempt('5.6.7.8', 'a@x.com', login)).resolves.toBe('token');
  });

  it('resets on success and does not count outages', async () => {
    const throttle = new LoginThrottle(config);
    for (let i = 0; i < 2; i++) await throttle.attempt('ip', 'a@x.com', refused).catch(() => undefined);
    await throttle.attempt('ip', 'a@x.com', async () => 'ok');
    for (let i = 0; i < 2; i++) await throttle.attempt('ip', 'a@x.com', refused).catch(() => undefined);
    const down = () => Promise.reject(new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable));
    for (let i = 0; i < 5; i++) await throttle.attempt('ip', 'a@x.com', down).catch(() => undefined);
    await expect(throttle.attempt('ip', 'a@x.com', async () => 'ok')).resolves.toBe('ok');
  });
});

describe('RegisterThrottle', () => {
  it('allows REGISTER_MAX_PER_WINDOW attempts per address, successful or not', async () => {
    const throttle = new RegisterThrottle(config);
    await throttle.attempt('ip', async () => 'created');
    await throttle
      .attempt('ip', () => Promise.reject(new AppError('CONFLICT', 'taken')))
      .catch(() => undefined);
    await expect(throttle.attempt('ip', async () => 'created')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    await expect(throttle.attempt('other', async () => 'created')).resolves.toBe('created');
  });
});
