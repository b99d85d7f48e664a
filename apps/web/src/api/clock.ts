import { fromSpecSeconds } from '@oasis198/game-rules';

/**
 * The server's clock as seen from here. Every fresh room view carries `serverNow` (SPEC seconds);
 * the difference to the local clock is kept, so countdowns follow the server's deadlines even when
 * the device's clock is off.
 */
let offsetMs = 0;

export function noteServerNow(serverNow: unknown): void {
  if (typeof serverNow !== 'number' || !Number.isFinite(serverNow)) return;
  offsetMs = fromSpecSeconds(serverNow) - Date.now();
}

/** Unix milliseconds on the server's clock. */
export function serverNowMs(): number {
  return Date.now() + offsetMs;
}

/** For tests: forget the measured offset. */
export function resetServerClock(): void {
  offsetMs = 0;
}
