/**
 * Fixed-window attempt counting as pure decisions. A key's window opens with its first attempt
 * and lasts `windowMs`; within it at most `max` attempts are allowed. The store (shared-limit.ts)
 * writes whatever these functions decide, guarded by the key's revision.
 */

/** A limit: at most `max` attempts per key within `windowMs`. */
export interface LimitRule {
  max: number;
  windowMs: number;
}

/** What a key holds: the attempts of its current window and when that window ends (epoch ms). */
export interface WindowState {
  count: number;
  endsAt: number;
}

export type ReservePlan =
  | { allowed: true; next: WindowState }
  | { allowed: false; count: number; retryAfterMs: number; endsAt: number };

/** The window still running at `now`, or null. */
export function currentWindow(state: WindowState | null, now: number): WindowState | null {
  return state && state.endsAt > now ? state : null;
}

/** One more attempt: counted in the running window (or a new one), or refused at the limit. */
export function planReserve(state: WindowState | null, rule: LimitRule, now: number): ReservePlan {
  const window = currentWindow(state, now);
  if (!window) return { allowed: true, next: { count: 1, endsAt: now + rule.windowMs } };
  if (window.count >= rule.max) {
    return { allowed: false, count: window.count, retryAfterMs: window.endsAt - now, endsAt: window.endsAt };
  }
  return { allowed: true, next: { count: window.count + 1, endsAt: window.endsAt } };
}

/**
 * Gives back an attempt counted in the window that ends at `windowEndsAt`; null (nothing to
 * write) when that window is over or was reset meanwhile, so a refund never lowers a newer count.
 */
export function planRefund(state: WindowState | null, windowEndsAt: number, now: number): WindowState | null {
  const window = currentWindow(state, now);
  if (!window || window.endsAt !== windowEndsAt || window.count <= 0) return null;
  return { count: window.count - 1, endsAt: window.endsAt };
}

/** Forgets the key's attempts: the next one opens a new window. Null when there is nothing to forget. */
export function planReset(state: WindowState | null, now: number): WindowState | null {
  return currentWindow(state, now) ? { count: 0, endsAt: 0 } : null;
}

export function encodeWindow(state: WindowState): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ c: state.count, e: state.endsAt }));
}

/** The stored state, or null for a missing or unreadable value (which then counts as no window). */
export function decodeWindow(value: Uint8Array | null): WindowState | null {
  if (!value || value.length === 0) return null;
  try {
    const { c, e } = JSON.parse(new TextDecoder().decode(value)) as { c?: unknown; e?: unknown };
    if (typeof c !== 'number' || typeof e !== 'number' || !Number.isFinite(c) || !Number.isFinite(e)) {
      return null;
    }
    return { count: c, endsAt: e };
  } catch {
    return null;
  }
}
