import { Inject, Injectable } from '@nestjs/common';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import { CONFIG, RetryLaterError } from '@oasis198/service-kit';
import type { GatewayConfig } from '../config';

interface Window {
  count: number;
  resetsAt: number;
}

/**
 * Counts attempts per key in a fixed window that opens with the key's first attempt. Kept in
 * memory: each gateway replica counts on its own (docs/decisions.md). The map is bounded; when
 * full, windows that have ended go first, then the oldest keys.
 */
export class AttemptCounter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Attempts of the key in its current window. */
  count(key: string): number {
    const window = this.windows.get(key);
    if (!window) return 0;
    if (window.resetsAt <= this.now()) {
      this.windows.delete(key);
      return 0;
    }
    return window.count;
  }

  isLimited(key: string): boolean {
    return this.count(key) >= this.max;
  }

  /** Milliseconds until the key's window ends (0 without one). */
  retryAfterMs(key: string): number {
    const window = this.windows.get(key);
    return window ? Math.max(0, window.resetsAt - this.now()) : 0;
  }

  /** Throws 429 with Retry-After if the key has used up its window. */
  assertAllowed(key: string): void {
    if (this.isLimited(key)) {
      throw new RetryLaterError('RATE_LIMITED', COMMON_MESSAGES.rateLimited, this.retryAfterMs(key) / 1000);
    }
  }

  /** Counts one attempt and returns the key's count. */
  record(key: string): number {
    const count = this.count(key) + 1;
    const existing = this.windows.get(key);
    if (existing) existing.count = count;
    else {
      this.makeRoom();
      this.windows.set(key, { count, resetsAt: this.now() + this.windowMs });
    }
    return count;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }

  private makeRoom(): void {
    if (this.windows.size < this.maxKeys) return;
    const now = this.now();
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
    // Still full: drop the oldest keys (a Map iterates in insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}

/** The failures auth answers for wrong credentials (not outages, which are no one's attempt). */
const isRefusal = (error: unknown) =>
  error instanceof AppError && (error.code === 'VALIDATION' || error.code === 'UNAUTHORIZED');

/**
 * Failed logins per client address and e-mail: after LOGIN_MAX_FAILURES within
 * LOGIN_FAILURE_WINDOW_S the next attempts answer 429 (with Retry-After) until the window ends; a
 * success resets.
 */
@Injectable()
export class LoginThrottle {
  readonly failures: AttemptCounter;

  constructor(@Inject(CONFIG) config: GatewayConfig) {
    this.failures = new AttemptCounter(config.LOGIN_MAX_FAILURES, config.LOGIN_FAILURE_WINDOW_S * 1000);
  }

  async attempt<T>(clientAddress: string, email: string, login: () => Promise<T>): Promise<T> {
    const key = `${clientAddress}|${email.trim().toLowerCase()}`;
    this.failures.assertAllowed(key);
    try {
      const result = await login();
      this.failures.reset(key);
      return result;
    } catch (error) {
      if (isRefusal(error)) this.failures.record(key);
      throw error;
    }
  }
}

/** Registrations per client address: at most REGISTER_MAX_PER_WINDOW attempts within REGISTER_WINDOW_S. */
@Injectable()
export class RegisterThrottle {
  readonly attempts: AttemptCounter;

  constructor(@Inject(CONFIG) config: GatewayConfig) {
    this.attempts = new AttemptCounter(config.REGISTER_MAX_PER_WINDOW, config.REGISTER_WINDOW_S * 1000);
  }

  async attempt<T>(clientAddress: string, register: () => Promise<T>): Promise<T> {
    this.attempts.assertAllowed(clientAddress);
    this.attempts.record(clientAddress);
    return register();
  }
}
