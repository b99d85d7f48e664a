import pLimit from 'p-limit';
import { CallerGaveUpError, currentDeadline, pastDeadline } from './request-context';

/**
 * A line for costly work done for requests (argon2 in auth, the public reads of rewards): at most
 * `atOnce` pieces run together, the rest wait their turn, and a piece whose request's caller has
 * stopped waiting by then is not started (CallerGaveUpError, counted in oasis_rpc_expired_total).
 * Without it, a storm of requests left a backlog nobody would read, and the requests after the
 * storm waited behind it until their callers gave up too.
 */
export class WorkLine {
  private readonly line: pLimit.Limit;

  constructor(atOnce: number) {
    this.line = pLimit(atOnce);
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    // Read now: p-limit starts queued work in the context of the work that finished before it.
    const deadline = currentDeadline();
    return this.line(() => {
      if (pastDeadline(deadline)) throw new CallerGaveUpError();
      return work();
    });
  }
}
