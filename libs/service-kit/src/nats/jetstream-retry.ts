import { currentDeadline } from '../request-context';

/**
 * How long a JetStream call keeps trying through a stream or KV leader election, unless the
 * request's caller stops waiting first (NATS_RETRY_BUDGET_MS; 0: no retry). A follower campaigns
 * 4-9 s after the leader's last heartbeat (nats-server raft.go); a SIGKILLed node's streams had a
 * new leader 4.3-7.6 s later here.
 */
export const DEFAULT_NATS_RETRY_BUDGET_MS = 10_000;

/**
 * How long the first attempt may take before the next is sent, the second twice that, and so on.
 * A request to a leader that just died is never answered (nats.js would wait its whole 5 s); an
 * answered one takes milliseconds (p99 66 ms at load); growing, so a slow cluster is not flooded.
 */
export const JETSTREAM_ATTEMPT_TIMEOUT_MS = 1000;

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1000;

let budgetMs = DEFAULT_NATS_RETRY_BUDGET_MS;

/** Sets the process's retry budget (the service's NATS_RETRY_BUDGET_MS). */
export function setJetStreamRetryBudget(ms: number): void {
  budgetMs = Math.max(0, ms);
}

/**
 * JetStream errors of the server's API that say the stream or the cluster has no leader right
 * now, so nothing was stored (nats-server errors.json): 10008 "JetStream system temporarily
 * unavailable", 10009 "JetStream cluster can not handle request", 10163 "expected last sequence
 * per subject temporarily unavailable" (a new leader still loading a subject's last sequence),
 * 10158 "duplicate message id is in process" (an earlier attempt with the same Nats-Msg-Id is
 * being stored: the next attempt is answered as a duplicate of it).
 */
const TRANSIENT_API_ERRORS = new Set([10008, 10009, 10158, 10163]);

/**
 * Errors a JetStream request gets while one node of the cluster is down and its streams elect new
 * leaders: "no responders" (the stream has no leader subscribed), a request timeout (it went to
 * the dead leader), and the API errors above. A refusal of the message itself (wrong last
 * sequence 10071/10164, a full stream, a bad request) is final and never retried.
 */
export function isTransientJetStreamError(error: unknown): boolean {
  const e = error as { code?: unknown; api_error?: { err_code?: unknown } } | null;
  if (!e) return false;
  if (e.api_error !== undefined) {
    const code = e.api_error?.err_code;
    return typeof code === 'number' && TRANSIENT_API_ERRORS.has(code);
  }
  return e.code === '503' || e.code === 'TIMEOUT';
}

/** An attempt that was not answered in time; retried like a nats.js request timeout. */
export class JetStreamAttemptTimeout extends Error {
  readonly code = 'TIMEOUT';

  constructor(ms: number) {
    super(`JetStream did not answer in ${ms} ms`);
    this.name = 'JetStreamAttemptTimeout';
  }
}

export interface JetStreamRetryOptions {
  /** Overrides the process's budget (NATS_RETRY_BUDGET_MS). */
  budgetMs?: number;
  /** Overrides JETSTREAM_ATTEMPT_TIMEOUT_MS. */
  attemptTimeoutMs?: number;
  /** Told of each transient failure before the next attempt. */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs a JetStream call again on a transient cluster error (isTransientJetStreamError), backing off
 * from 100 ms to 1 s, until it succeeds, fails for good, or the budget (or the request's deadline,
 * whichever comes first) is spent; then its last error is thrown. An attempt still unanswered
 * after the attempt timeout is left behind and the next one sent, so the call must be safe to
 * repeat: a read, a publish with a Nats-Msg-Id (a repeat is stored once), or a write guarded by
 * an expected last sequence whose caller reads again when it loses.
 */
export async function withJetStreamRetry<T>(
  call: () => Promise<T>,
  options: JetStreamRetryOptions = {},
): Promise<T> {
  const budget = options.budgetMs ?? budgetMs;
  if (budget <= 0) return call();
  const deadline = currentDeadline();
  const end = Math.min(Date.now() + budget, deadline ?? Number.POSITIVE_INFINITY);
  const attemptMs = options.attemptTimeoutMs ?? JETSTREAM_ATTEMPT_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    const left = end - Date.now();
    // Past the deadline already: one plain attempt, as without the retry.
    if (left <= 0 && attempt === 1) return call();
    try {
      return await attemptWithin(call, Math.min(attemptMs * attempt, Math.max(1, left)));
    } catch (error) {
      const remaining = end - Date.now();
      // The last attempt gets at least FIRST_BACKOFF_MS to be answered in.
      if (!isTransientJetStreamError(error) || remaining < 2 * FIRST_BACKOFF_MS) throw error;
      options.onRetry?.(error, attempt);
      const pause = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, remaining - FIRST_BACKOFF_MS)));
    }
  }
}

function attemptWithin<T>(call: () => Promise<T>, ms: number): Promise<T> {
  const attempt = call();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JetStreamAttemptTimeout(ms)), ms);
  });
  // An attempt left behind settles later; its outcome is the next attempt's to find.
  attempt.catch(() => undefined);
  return Promise.race([attempt, timeout]).finally(() => clearTimeout(timer));
}
