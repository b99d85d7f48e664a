import { rateLimitedMessage } from '@oasis198/contracts';

/** Expects the 429 of a counting limit: a message naming the wait, and a Retry-After of 1 to maxS seconds. */
export function expectRateLimited(
  res: { status: number; headers: Headers; body: unknown },
  maxS: number,
): void {
  expect(res.status).toBe(429);
  const seconds = Number(res.headers.get('retry-after'));
  expect(res.body).toEqual({ message: rateLimitedMessage(seconds), code: 'RATE_LIMITED' });
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxS);
}
