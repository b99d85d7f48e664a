import type { DeadlineDueRequest, DeadlineDueResponse } from '@oasis198/contracts';
import type { Logger } from '@oasis198/service-kit';
import type { DeadlineEntry, RoomDeadlinesRecord } from './deadline.schema';
import type { Completion, DeadlineStore } from './deadline-store';
import { planShards, SHARD_COUNT, shardOf } from './shards';

/** The rooms service, as the scheduler sees it: applies a due deadline if it is still current. */
export type ApplyDeadline = (request: DeadlineDueRequest) => Promise<DeadlineDueResponse>;

export type FireOutcome = 'applied' | 'stale' | 'failed';

export interface SchedulerOptions {
  /** This replica's name in leases. */
  owner: string;
  pollMs: number;
  /** How far ahead a poll arms in-memory timers. */
  lookaheadMs: number;
  /** How long a shard lease lasts without renewal (a replica that dies frees its shards after this). */
  leaseMs: number;
  maxInFlight: number;
  shardCount?: number;
  /** How often handled deadlines are written back (they are remembered in memory meanwhile). */
  flushMs?: number;
  /**
   * How long a handled deadline waits before it is written back. The room's next snapshot
   * (which the rooms service publishes after applying it) usually replaces the record first, and
   * then no write is needed at all.
   */
  writeBackAfterMs?: number;
  /** Called for each deadline sent to the rooms service, with how late it was sent (ms). */
  onFired?: (entry: DeadlineEntry, latenessMs: number, outcome: FireOutcome) => void;
  /** First delay before asking again about a deadline the rooms service calls 'not due yet' (100 ms). */
  notDueRetryMs?: number;
  /** The longest such delay: the waits double up to it (1 s), so a timeout is at most this late by rooms' clock. */
  notDueMaxRetryMs?: number;
}

/** Delays before asking again when the rooms service's clock says a deadline is not due yet. */
const NOT_DUE_RETRY_MS = 100;
const NOT_DUE_MAX_RETRY_MS = 1000;
/** A deadline still 'not due' after this many answers is logged (clocks apart), then every NOT_DUE_LOG_EVERY. */
const NOT_DUE_LOG_AFTER = 20;
const NOT_DUE_LOG_EVERY = 60;
/** How long a written-back deadline is still remembered, in case a poll read the record before. */
const FORGET_AFTER_MS = 5000;
/** Every this often (and after a poke or a change of shards) a poll reads every due record, not only new ones. */
const FULL_SCAN_EVERY_MS = 10_000;
/** Incremental polls overlap the previous window by this much. */
const WINDOW_OVERLAP_MS = 1000;
/** Write-backs per flush, so they never crowd the database while deadlines fire. */
const WRITE_BACKS_PER_FLUSH = 50;
/** On stop, write back for at most this long; what is left is re-sent after a restart (harmlessly). */
const STOP_FLUSH_BUDGET_MS = 2000;
/** Backoff while the rooms service cannot be reached: 1 s, 2 s, 4 s, ... up to 15 s. */
export const backoffMs = (attempts: number): number =>
  Math.min(15_000, 1000 * 2 ** Math.max(0, attempts - 1));

interface Armed {
  version: number;
  timer: NodeJS.Timeout;
}

const entryKey = (entry: DeadlineEntry) => `${entry.kind}@${new Date(entry.dueAt).getTime()}`;

/**
 * Runs on every replica. Rooms are spread over shards; at each poll a replica renews the leases
 * of its share of the shards (claiming free or expired ones, releasing some when another replica
 * joined), reads the deadlines of its shards that fall due within the look-ahead, and arms a
 * precise in-memory timer for each room. At fire time it sends the room's due deadlines, in
 * order, to the rooms service, which applies each only if it is still current. A shard belongs
 * to one replica at a time, so two replicas do not send the same deadline; a replica that dies
 * frees its shards when their leases end, and a clean stop releases them at once. A restarted
 * timer's first poll finds what fell due while it was away and fires it immediately.
 *
 * Handled deadlines are remembered in memory and written back in batches: the room's next
 * snapshot replaces them anyway, and a deadline sent twice (after a crash) is harmless because
 * the rooms service applies each one at most once.
 */
export class DeadlineScheduler {
  private readonly armed = new Map<string, Armed>();
  /** Per room: the version and the deadlines of it already handled here (until written back). */
  private readonly handled = new Map<string, { version: number; keys: Set<string>; flushedAt?: number }>();
  private readonly firing = new Set<Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  /** Handled deadlines to write back, per room, with when they were handled. */
  private readonly completions = new Map<string, Completion & { at: number }>();
  private lastHorizon?: number;
  private lastFullScan = 0;
  private fullScan = true;
  /** Shards held, with the time their lease is known to last until. */
  private owned = new Map<number, number>();
  private inFlight = 0;
  private pollTimer?: NodeJS.Timeout;
  private flushTimer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private flushing?: Promise<void>;
  private pokeAgain = false;
  private running = false;
  private readonly shardCount: number;

  constructor(
    private readonly store: DeadlineStore,
    private readonly apply: ApplyDeadline,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
  ) {
    this.shardCount = options.shardCount ?? SHARD_COUNT;
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.store.ensureShards(this.shardCount);
    this.running = true;
    this.schedulePoll(0);
    const flushEvery = this.options.flushMs ?? 1000;
    this.flushTimer = setInterval(() => {
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    }, flushEvery);
    this.flushTimer.unref();
  }

  /** Stops polling and firing, lets deadlines being sent finish, writes back, and releases its shards. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.pollTimer);
    clearInterval(this.flushTimer);
    for (const { timer } of this.armed.values()) clearTimeout(timer);
    this.armed.clear();
    await this.polling;
    await Promise.allSettled([...this.firing]);
    await this.flushing;
    await this.flush({ all: true, budgetMs: STOP_FLUSH_BUDGET_MS });
    this.owned.clear();
    await this.store.releaseShards(this.options.owner).catch((error) => {
      this.logger.warn({ err: error }, 'could not release shard leases; they expire on their own');
    });
  }

  /** A deadline may have become due soon (a fresh snapshot): poll now rather than at the next tick. */
  poke(): void {
    if (!this.running) return;
    this.fullScan = true;
    if (this.polling) {
      this.pokeAgain = true;
      return;
    }
    this.schedulePoll(0);
  }

  /**
   * A snapshot of the room at `version` was stored: what was handled for older versions needs no
   * write-back (the new record replaced it).
   */
  noteVersion(roomId: string, version: number): void {
    const pending = this.completions.get(roomId);
    if (pending && pending.version < version) this.completions.delete(roomId);
  }

  /** Rooms with a timer armed on this replica right now. */
  get armedCount(): number {
    return this.armed.size;
  }

  /** Shards this replica fires right now. */
  get ownedShards(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  private schedulePoll(delayMs: number): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.polling = this.poll()
        .catch((error) => this.logger.warn({ err: error }, 'deadline poll failed'))
        .finally(() => {
          this.polling = undefined;
          if (!this.running) return;
          const again = this.pokeAgain;
          this.pokeAgain = false;
          this.schedulePoll(again ? 0 : this.options.pollMs);
        });
    }, delayMs);
  }

  /**
   * Reads the records of its shards due within the look-ahead and arms them. Most polls read only
   * the part of the window that is new since the last poll; every FULL_SCAN_EVERY_MS, after a
   * poke and when its shards change, a poll reads everything due (which also finds what fell due
   * while no timer ran).
   */
  private async poll(): Promise<void> {
    const shardsChanged = await this.holdShards();
    if (!this.running) return;
    const now = Date.now();
    const horizon = now + this.options.lookaheadMs;
    const full =
      this.fullScan ||
      shardsChanged ||
      this.lastHorizon === undefined ||
      now - this.lastFullScan >= FULL_SCAN_EVERY_MS;
    this.fullScan = false;
    const after =
      full || this.lastHorizon === undefined ? undefined : new Date(this.lastHorizon - WINDOW_OVERLAP_MS);
    const records = await this.store.dueIn(this.ownedShards, new Date(horizon), after);
    if (full) this.lastFullScan = now;
    this.lastHorizon = horizon;
    if (!this.running) return;
    for (const record of records) this.arm(record);
  }

  /** Renews, claims or releases shard leases so this replica holds its fair share; true if its shards changed. */
  private async holdShards(): Promise<boolean> {
    const { owner, leaseMs } = this.options;
    const now = Date.now();
    const until = new Date(now + leaseMs);
    const live = await this.store.heartbeat(owner, new Date(now), new Date(now - leaseMs));
    const leases = await this.store.readShards();
    const plan = planShards({ owner, leases, liveReplicas: live, nowMs: now });
    const owned = new Map<number, number>();
    if (plan.release.length) await this.store.releaseShards(owner, plan.release);
    if (plan.renew.length) {
      const renewed = await this.store.renewShards(owner, plan.renew, until);
      for (const shard of plan.renew) {
        const known = leases.find((l) => l._id === shard);
        // All renewed: held until the new lease end; otherwise trust only what was read.
        owned.set(
          shard,
          renewed === plan.renew.length ? until.getTime() : new Date(known?.leaseUntil ?? 0).getTime(),
        );
      }
    }
    for (const shard of plan.claim) {
      if (await this.store.claimShard(owner, shard, new Date(now), until)) owned.set(shard, until.getTime());
    }
    const lost = [...this.owned.keys()].filter((shard) => !owned.has(shard));
    const gained = [...owned.keys()].some((shard) => !this.owned.has(shard));
    this.owned = owned;
    if (lost.length) {
      for (const [roomId, armed] of this.armed) {
        if (!owned.has(shardOf(roomId, this.shardCount))) {
          clearTimeout(armed.timer);
          this.armed.delete(roomId);
        }
      }
      this.logger.info({ shards: lost }, 'shards handed over');
    }
    return gained || lost.length > 0;
  }

  private holds(roomId: string): boolean {
    return (this.owned.get(shardOf(roomId, this.shardCount)) ?? 0) > Date.now();
  }

  /** Arms one timer per room, for its earliest deadline not yet handled here. */
  private arm(record: RoomDeadlinesRecord): void {
    if (this.armed.get(record._id)?.version === record.version) return;
    const seen = this.handled.get(record._id);
    if (seen && seen.version !== record.version) this.handled.delete(record._id);
    const pending = record.deadlines.filter(
      (d) => !(seen?.version === record.version && seen.keys.has(entryKey(d))),
    );
    const first = pending[0];
    if (!first) return;
    const previous = this.armed.get(record._id);
    if (previous) clearTimeout(previous.timer);
    const delay = Math.max(0, new Date(first.dueAt).getTime() - Date.now());
    const timer = setTimeout(() => this.fire({ ...record, deadlines: pending }), delay);
    this.armed.set(record._id, { version: record.version, timer });
  }

  private fire(record: RoomDeadlinesRecord, attempts = 0): void {
    const run = this.handle(record, attempts).catch((error) =>
      this.logger.error({ err: error, roomId: record._id }, 'deadline handling failed'),
    );
    this.firing.add(run);
    void run.finally(() => this.firing.delete(run));
  }

  /** Sends the room's due deadlines in order; remembers what was handled, or retries later. */
  private async handle(record: RoomDeadlinesRecord, attempts: number, notDueRetries = 0): Promise<void> {
    const remaining = [...record.deadlines];
    const done: DeadlineEntry[] = [];
    while (this.running && remaining[0] && new Date(remaining[0].dueAt).getTime() <= Date.now()) {
      if (!this.holds(record._id)) break; // The shard moved to another replica, which fires it.
      const entry = remaining[0];
      const sentAt = Date.now();
      const lateness = sentAt - new Date(entry.dueAt).getTime();
      let answer: DeadlineDueResponse;
      try {
        answer = await this.withSlot(() =>
          this.apply({
            roomId: record._id,
            kind: entry.kind,
            version: record.version,
            gameNumber: entry.gameNumber,
            moveIndex: entry.moveIndex,
          }),
        );
      } catch (error) {
        this.options.onFired?.(entry, lateness, 'failed');
        const retryIn = backoffMs(attempts + 1);
        this.logger.warn(
          { err: error, roomId: record._id, kind: entry.kind, attempts: attempts + 1, retryInMs: retryIn },
          'rooms did not take a due deadline; will retry',
        );
        this.remember(record, done);
        this.retryLater({ ...record, deadlines: remaining }, attempts + 1, retryIn);
        return;
      }
      if (answer.reason === 'not-due') {
        // The rooms service's clock is behind ours. The deadline stays ours for as long as it is
        // current (no newer snapshot, shard still held): ask again, a little later each time, up
        // to notDueMaxRetryMs. Giving up would lose the timeout for good.
        const retries = notDueRetries + 1;
        if (
          retries === NOT_DUE_LOG_AFTER ||
          (retries > NOT_DUE_LOG_AFTER && retries % NOT_DUE_LOG_EVERY === 0)
        ) {
          this.logger.warn(
            {
              roomId: record._id,
              kind: entry.kind,
              dueAt: entry.dueAt,
              notDueAnswers: retries,
              lateByOurClockMs: lateness,
            },
            'rooms keeps saying a deadline is not due yet (are the clocks apart?); still asking',
          );
        }
        this.remember(record, done);
        this.retryLater({ ...record, deadlines: remaining }, attempts, this.notDueDelay(retries), retries);
        return;
      }
      this.options.onFired?.(entry, lateness, answer.applied ? 'applied' : 'stale');
      done.push(entry);
      remaining.shift();
    }
    this.remember(record, done);
    if (this.armed.get(record._id)?.version === record.version) this.armed.delete(record._id);
    if (done.length) {
      this.completions.set(record._id, {
        roomId: record._id,
        version: record.version,
        remaining,
        at: Date.now(),
      });
    }
    // The next one may fall due within the look-ahead: arm it at once (later ones a poll finds).
    const next = remaining[0];
    if (this.running && next && new Date(next.dueAt).getTime() <= Date.now() + this.options.lookaheadMs) {
      this.arm({ ...record, deadlines: remaining });
    }
  }

  /** 100 ms, 200 ms, 400 ms ... up to the cap (1 s). */
  private notDueDelay(retries: number): number {
    const first = this.options.notDueRetryMs ?? NOT_DUE_RETRY_MS;
    const cap = this.options.notDueMaxRetryMs ?? NOT_DUE_MAX_RETRY_MS;
    return Math.min(cap, first * 2 ** Math.min(20, retries - 1));
  }

  /**
   * Keeps the room armed (so polls leave it alone) and hands it back to handle() after a delay,
   * unless a newer snapshot of the room was armed meanwhile: that one carries the room's current
   * deadlines, and this record's are no longer current.
   */
  private retryLater(
    record: RoomDeadlinesRecord,
    attempts: number,
    delayMs: number,
    notDueRetries = 0,
  ): void {
    const armed = this.armed.get(record._id);
    if (armed && armed.version > record.version) return;
    const timer = setTimeout(() => {
      const run = this.handle(record, attempts, notDueRetries).catch((error) =>
        this.logger.error({ err: error, roomId: record._id }, 'deadline handling failed'),
      );
      this.firing.add(run);
      void run.finally(() => this.firing.delete(run));
    }, delayMs);
    this.armed.set(record._id, { version: record.version, timer });
  }

  private remember(record: RoomDeadlinesRecord, done: readonly DeadlineEntry[]): void {
    if (done.length === 0) return;
    let seen = this.handled.get(record._id);
    if (!seen || seen.version !== record.version) {
      seen = { version: record.version, keys: new Set() };
      this.handled.set(record._id, seen);
    }
    for (const entry of done) seen.keys.add(entryKey(entry));
    seen.flushedAt = undefined;
  }

  /**
   * Writes handled deadlines back, a few at a time, once they are old enough that the room's next
   * snapshot would normally have replaced them (then nothing is written). What was written is
   * forgotten a few seconds later, once no poll that read the old record can still be under way.
   */
  private async flush(options: { all?: boolean; budgetMs?: number } = {}): Promise<void> {
    const now = Date.now();
    for (const [roomId, seen] of this.handled) {
      if (seen.flushedAt !== undefined && seen.flushedAt < now - FORGET_AFTER_MS && !this.armed.has(roomId)) {
        this.handled.delete(roomId);
      }
    }
    const writeBackAfter = this.options.writeBackAfterMs ?? 10_000;
    const due = [...this.completions.values()].filter((c) => options.all || c.at <= now - writeBackAfter);
    const batch = options.all ? due : due.slice(0, WRITE_BACKS_PER_FLUSH);
    const stopAt = now + (options.budgetMs ?? Infinity);
    for (const completion of batch) {
      if (Date.now() > stopAt) break;
      if (this.completions.get(completion.roomId) !== completion) continue;
      try {
        await this.store.complete([completion]);
      } catch (error) {
        this.logger.warn(
          { err: error, roomId: completion.roomId },
          'writing back a handled deadline failed; will retry',
        );
        return;
      }
      if (this.completions.get(completion.roomId) === completion) this.completions.delete(completion.roomId);
      const seen = this.handled.get(completion.roomId);
      if (seen?.version === completion.version) seen.flushedAt = Date.now();
    }
  }

  /** At most maxInFlight deadlines with the rooms service at once; a freed slot passes to the next in line. */
  private async withSlot<T>(task: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.options.maxInFlight) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.inFlight++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}
