import { AppError } from '@oasis198/contracts';

/** What a refusal says to the caller (its details, per field, are for toThrow(objectContaining)). */
export interface Refusal {
  code: string;
  message: string;
}

/**
 * The AppError that `work` throws (a function) or rejects with (a promise), as a plain object to
 * compare: `expect(await expectAppError(call())).toEqual({ code: 'CONFLICT', message: ... })`.
 * Succeeding fails the test; any other error is rethrown.
 */
export function expectAppError(work: Promise<unknown>): Promise<Refusal>;
export function expectAppError(work: () => unknown): Refusal;
export function expectAppError(work: Promise<unknown> | (() => unknown)): Refusal | Promise<Refusal> {
  if (typeof work !== 'function') return work.then(succeeded, refusal);
  try {
    work();
  } catch (error) {
    return refusal(error);
  }
  return succeeded();
}

function refusal(error: unknown): Refusal {
  if (!(error instanceof AppError)) throw error;
  return { code: error.code, message: error.message };
}

function succeeded(): never {
  throw new Error('expected an AppError, but the call succeeded');
}
