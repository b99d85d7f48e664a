import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Give up after this long (default 10 s). */
  timeout?: number;
  /** Between attempts (default 150 ms). */
  interval?: number;
}

/**
 * Retries `check` (typically reads from the page and expectations) until it passes; after the
 * timeout the last failure is thrown as is, so the report shows the real difference.
 */
export async function eventually<T>(
  check: () => Promise<T>,
  { timeout = 10_000, interval = 150 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await sleep(interval);
  }
}
