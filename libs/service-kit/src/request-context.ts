import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';

export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (epoch ms), if it said (RpcClient's x-request-deadline). */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs fn with a request id that every log line and outgoing NATS message inside it carries, and
 * the caller's deadline, which work queued for the request respects (currentDeadline).
 */
export function runWithRequestId<T>(requestId: string | undefined, fn: () => T, deadline?: number): T {
  return storage.run({ requestId: sanitizeRequestId(requestId) ?? randomUUID(), deadline }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The current request's deadline (epoch ms), if its caller gave one. */
export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

/**
 * Work for a request whose caller has stopped waiting: it is not started, since nobody will get its
 * answer, and the caller has told its client 503 already. UNAVAILABLE, as the caller answered.
 */
export class CallerGaveUpError extends AppError {
  constructor() {
    super('UNAVAILABLE', COMMON_MESSAGES.unavailable);
  }
}

/** True once `deadline` (epoch ms) has passed; never for a request without one. */
export const pastDeadline = (deadline: number | undefined): boolean =>
  deadline !== undefined && Date.now() > deadline;

/** Accepts a caller's id only if it is short and harmless in logs; otherwise a new one is made. */
export function sanitizeRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}
