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
  /** Per key, the end of its last piece: the next one of that key joins the line after it. */
  private readonly lastOf = new Map<string, Promise<unknown>>();

  constructor(atOnce: number) {
    this.line = pLimit(atOnce);
  }

  /**
   * Runs work in turn. Pieces with the same `key` (an account) join the line one after another,
   * so one key holds at most one of its places, and others' pieces pass its backlog.
   */
  run<T>(work: () => Promise<T>, key?: string): Promise<T> {
    // Read now: p-limit starts queued work in the context of the work that finished before it.
    const deadline = currentDeadline();
    const inLine = () =>
      this.line(() => {
        if (pastDeadline(deadline)) throw new CallerGaveUpError();
        return work();
      });
    if (key === undefined) return inLine();
    const before = this.lastOf.get(key);
    const result = before ? before.then(inLine) : inLine();
    const done = result.catch(() => undefined);
    this.lastOf.set(key, done);
    void done.then(() => {
      if (this.lastOf.get(key) === done) this.lastOf.delete(key);
    });
    return result;
  }
}
