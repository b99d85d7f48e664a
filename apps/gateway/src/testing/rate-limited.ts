import { rateLimitedMessage } from '@oasis198/contracts';

/**
 * Expects the 429 of a counting limit whose window of `windowS` seconds opened moments ago (as in
 * every suite that calls it): a Retry-After of the rest of that window, so at least half of it
 * and at most all of it (a 10-minute lock that says a minute fails), and a message naming that wait.
 */
export function expectRateLimited(
  res: { status: number; headers: Headers; body: unknown },
  windowS: number,
): void {
  expect(res.status).toBe(429);
  const seconds = Number(res.headers.get('retry-after'));
  expect(res.body).toEqual({ message: rateLimitedMessage(seconds), code: 'RATE_LIMITED' });
  expect(seconds).toBeGreaterThanOrEqual(Math.max(1, Math.floor(windowS / 2)));
  expect(seconds).toBeLessThanOrEqual(windowS);
}
