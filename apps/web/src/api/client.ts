import { type ErrorCode, isErrorEnvelope, TOTAL_COUNT_HEADER } from '@oasis198/contracts';
import { T } from '../texts';
import { getSession, type Session, setSession } from './session';

/** Every failed call ends as an ApiError; status 0 means the network failed before an answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }
}

export const NETWORK_ERROR_MESSAGE = 'Network Error';

/** The 401 of a change that needs a recent login (DECISIONS "Re-authentication"). */
export const REAUTH_REQUIRED: ErrorCode = 'reauth_required';

export function isReauthRequired(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 401 && error.code === REAUTH_REQUIRED;
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** The message to show for any failure: the server's own where it sent one. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError || error instanceof Error) return error.message;
  return T.genericError;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: HttpMethod;
  body?: unknown;
  /** Send the logged-in user's bearer token (and refuse locally when there is none). */
  auth?: boolean;
  signal?: AbortSignal;
  /** Reads the headers of a successful answer (e.g. a paged list's X-Total-Count). */
  onHeaders?: (headers: Headers) => void;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The one place the app talks HTTP to its own origin: JSON in and out, the bearer token when asked,
 * and every failure turned into an ApiError carrying the server's `{ message, code }`.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = 'GET', body, auth = false, signal } = options;
  const headers: Record<string, string> = { Accept: 'application/json' };
  const session = auth ? getSession() : null;
  if (auth) {
    if (!session) throw new ApiError(401, 'Please log in to continue.', 'UNAUTHORIZED');
    headers.Authorization = `Bearer ${session.token}`;
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: 'same-origin',
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, NETWORK_ERROR_MESSAGE, 'NETWORK');
  }

  const payload = await readJson(response);
  if (!response.ok) throw refused(response.status, payload, auth ? session : null);
  options.onHeaders?.(response.headers);
  return payload as T;
}

/**
 * The ApiError of a refusal (any transport: an HTTP answer, a room socket's), with the server's
 * message. A refused token (expired, revoked, account gone) ends the local session it was sent
 * with; one that is valid but too old for this change (reauth_required) keeps it, and the caller
 * asks again.
 */
export function refused(status: number, payload: unknown, sentWith: Session | null): ApiError {
  const envelope = isErrorEnvelope(payload) ? payload : undefined;
  const message =
    envelope?.message ??
    (typeof (payload as { message?: unknown } | undefined)?.message === 'string'
      ? (payload as { message: string }).message
      : `Request failed with status code ${status}`);
  if (
    status === 401 &&
    envelope?.code !== REAUTH_REQUIRED &&
    sentWith &&
    getSession()?.token === sentWith.token
  ) {
    setSession(null);
  }
  return new ApiError(status, message, envelope?.code ?? `HTTP_${status}`, envelope?.details);
}

/** A page of a SPEC list: its items, and the number of items in all pages (X-Total-Count). */
export async function apiPage<T>(path: string, signal?: AbortSignal): Promise<{ items: T[]; total: number }> {
  let total: number | null = null;
  const items = await apiRequest<T[]>(path, {
    signal,
    onHeaders: (headers) => {
      // Number() reads a missing or empty header as 0, so only digits count as a total.
      const count = headers.get(TOTAL_COUNT_HEADER) ?? '';
      total = /^\d+$/.test(count) && Number.isSafeInteger(Number(count)) ? Number(count) : null;
    },
  });
  const list = Array.isArray(items) ? items : [];
  return { items: list, total: total ?? list.length };
}

/** A GET to a third-party origin (the GIF service): no credentials, no token. */
export async function externalJson(url: string, signal?: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'omit', signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, NETWORK_ERROR_MESSAGE, 'NETWORK');
  }
  const payload = await readJson(response);
  if (!response.ok)
    throw new ApiError(response.status, `Request failed with status code ${response.status}`, 'EXTERNAL');
  return payload;
}
