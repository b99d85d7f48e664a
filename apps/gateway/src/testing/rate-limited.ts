import { COMMON_MESSAGES } from '@oasis198/contracts';

/** Expects the 429 of a counting limit: the common message, and a Retry-After of 1 to maxS seconds. */
export function expectRateLimited(
  res: { status: number; headers: Headers; body: unknown },
  maxS: number,
): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ message: COMMON_MESSAGES.rateLimited, code: 'RATE_LIMITED' });
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxS);
}
