import type { DeadlineDueRequest, DeadlineDueResponse } from '@oasis198/contracts';
import { createLogger } from '@oasis198/service-kit';
import { waitFor } from '@oasis198/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeadlineEntry, RoomDeadlinesRecord, ShardLease } from './deadline.schema';
import { type Completion, type DeadlineStore, nextDueAt } from './deadline-store';
import { DeadlineScheduler, type SchedulerOptions } from './scheduler';
import { shardOf } from './shards';

/**
 * The store's contract in memory, with the same guards as the MongoDB repository: snapshots
 * replace only older versions, a shard lease is taken only when free or expired, and renewing or
 * releasing touches only the owner's leases.
 */
class MemoryStore implements DeadlineStore {
  readonly rooms = new Map<string, RoomDeadlinesRecord>();
  readonly shards = new Map<number, ShardLease>();
  readonly seen = new Map<string, Date>();
  completed: Completion[] = [];

  async applySnapshot(roomId: string, version: number, deadlines: DeadlineEntry[]): Promise<boolean> {
    const current = this.rooms.get(roomId);
    if (current && current.version >= version) return false;
    this.rooms.set(roomId, {
      _id: roomId,
      shard: shardOf(roomId),
      version,
      deadlines,
      nextDueAt: nextDueAt(deadlines),
      goneAt: null,
    });
    return true;
  }
  async markGone(roomId: string, version: number): Promise<boolean> {
    return this.applySnapshot(roomId, version, []);
  }
  async dueIn(shards: readonly number[], horizon: Date, after?: Date): Promise<RoomDeadlinesRecord[]> {
    return [...this.rooms.values()]
      .filter((r) => shards.includes(r.shard) && r.nextDueAt && r.nextDueAt <= horizon)
      .filter((r) => !after || (r.nextDueAt && r.nextDueAt > after))
      .map((r) => structuredClone(r));
  }
  async complete(completions: readonly Completion[]): Promise<void> {
    this.completed.push(...completions);
    for (const { roomId, version, remaining } of completions) {
      const room = this.rooms.get(roomId);
      if (room?.version === version)
        Object.assign(room, { deadlines: remaining, nextDueAt: nextDueAt(remaining) });
    }
  }
  async purgeGone(): Promise<number> {
    return 0;
  }
  async ensureShards(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      if (!this.shards.has(i)) this.shards.set(i, { _id: i, owner: null, leaseUntil: new Date(0) });
    }
  }
  async heartbeat(owner: string, now: Date, since: Date): Promise<string[]> {
    this.seen.set(owner, now);
    return [...this.seen].filter(([, at]) => at >= since).map(([id]) => id);
  }
  async readShards(): Promise<ShardLease[]> {
    return [...this.shards.values()].map((s) => ({ ...s }));
  }
  async renewShards(owner: string, shards: readonly number[], until: Date): Promise<number> {
    let renewed = 0;
    for (const id of shards) {
      const lease = this.shards.get(id);
      if (lease?.owner === owner) {
        lease.leaseUntil = until;
        renewed++;
      }
    }
    return renewed;
  }
  async claimShard(owner: string, shard: number, now: Date, until: Date): Promise<boolean> {
    const lease = this.shards.get(shard);
    if (!lease || lease.leaseUntil > now) return false;
    Object.assign(lease, { owner, leaseUntil: until });
    return true;
  }
  async releaseShards(owner: string, shards?: readonly number[]): Promise<void> {
    for (const lease of this.shards.values()) {
      if (lease.owner === owner && (!shards || shards.includes(lease._id))) {
        Object.assign(lease, { owner: null, leaseUntil: new Date(0) });
      }
    }
    if (!shards) this.seen.delete(owner);
  }
  owners(): Map<string | null, number> {
    const count = new Map<string | null, number>();
    for (const lease of this.shards.values()) count.set(lease.owner, (count.get(lease.owner) ?? 0) + 1);
    return count;
  }
}

const logger = createLogger('scheduler-test', 'silent');
/** Waits (up to 3 s) for a condition; the assertions after it then say what went wrong. */
const until = (condition: () => boolean) =>
  waitFor(async () => condition(), { timeoutMs: 3000, intervalMs: 10 }).catch(() => undefined);
const options = (owner: string, extra: Partial<SchedulerOptions> = {}): SchedulerOptions => ({
  owner,
  pollMs: 50,
  lookaheadMs: 300,
  leaseMs: 400,
  maxInFlight: 8,
  flushMs: 50,
  writeBackAfterMs: 100,
  ...extra,
});
const entry = (kind: DeadlineEntry['kind'], inMs: number, moveIndex = 0): DeadlineEntry => ({
  kind,
  dueAt: new Date(Date.now() + inMs),
  gameNumber: 1,
  moveIndex,
});

/** A rooms service that records what it was asked and when. */
function roomsService(
  answer: (request: DeadlineDueRequest) => DeadlineDueResponse | Promise<DeadlineDueResponse> = () => ({
    applied: true,
  }),
) {
  const calls: { request: DeadlineDueRequest; at: number }[] = [];
  const apply = async (request: DeadlineDueRequest) => {
    calls.push({ request, at: Date.now() });
    return answer(request);
  };
  return { calls, apply };
}

describe('DeadlineScheduler', () => {
  const running: DeadlineScheduler[] = [];
  const start = async (
    store: DeadlineStore,
    apply: (r: DeadlineDueRequest) => Promise<DeadlineDueResponse>,
    opts: SchedulerOptions,
  ) => {
    const scheduler = new DeadlineScheduler(store, apply, logger, opts);
    running.push(scheduler);
    await scheduler.start();
    return scheduler;
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
  });

  it('fires each deadline at its time, in order, and writes back what it handled', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    const due = entry('turn', 400);
    await store.applySnapshot('r1', 5, [due, entry('abandoned', 600)]);
    await start(store, rooms.apply, options('a'));
    await until(() => rooms.calls.length === 2 && store.rooms.get('r1')?.nextDueAt === null);
    expect(rooms.calls.map((c) => c.request)).toEqual([
      { roomId: 'r1', kind: 'turn', version: 5, gameNumber: 1, moveIndex: 0 },
      { roomId: 'r1', kind: 'abandoned', version: 5, gameNumber: 1, moveIndex: 0 },
    ]);
    const lateness = (rooms.calls[0]?.at ?? 0) - due.dueAt.getTime();
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(250);
    expect(store.rooms.get('r1')).toMatchObject({ deadlines: [], nextDueAt: null });
  });

  it('never sends a deadline twice from two replicas, which share the shards', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    for (let i = 0; i < 100; i++) await store.applySnapshot(`r${i}`, 1, [entry('turn', 300 + i * 5)]);
    await start(store, rooms.apply, options('a'));
    await start(store, rooms.apply, options('b'));
    await until(() => rooms.calls.length >= 100);
    await sleep(300);
    const ids = rooms.calls.map((c) => c.request.roomId);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    expect(store.owners()).toEqual(
      new Map([
        ['a', 8],
        ['b', 8],
      ]),
    );
  });

  it('fires at once what fell due while no timer ran (the restart sweep)', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    await store.applySnapshot('late', 2, [entry('turn', -30_000), entry('abandoned', 30_000)]);
    const started = Date.now();
    await start(store, rooms.apply, options('a'));
    await until(() => store.rooms.get('late')?.deadlines.length === 1);
    expect(rooms.calls).toHaveLength(1);
    expect((rooms.calls[0]?.at ?? Infinity) - started).toBeLessThan(500);
    expect(store.rooms.get('late')?.deadlines.map((d) => d.kind)).toEqual(['abandoned']);
  });

  it('keeps a deadline the rooms service could not take and retries it after a backoff', async () => {
    const store = new MemoryStore();
    let down = true;
    const rooms = roomsService(() => {
      if (down) throw new Error('rooms unavailable');
      return { applied: true };
    });
    await store.applySnapshot('r1', 1, [entry('turn', 0)]);
    await start(store, rooms.apply, options('a'));
    await until(() => rooms.calls.length === 1);
    await sleep(300);
    expect(rooms.calls).toHaveLength(1);
    expect(store.rooms.get('r1')?.deadlines).toHaveLength(1);
    down = false;
    await until(() => store.rooms.get('r1')?.deadlines.length === 0);
    expect(rooms.calls).toHaveLength(2);
    expect(store.rooms.get('r1')?.deadlines).toEqual([]);
  });

  it('asks again shortly when the rooms service says "not due yet"', async () => {
    const store = new MemoryStore();
    let early = 2;
    const rooms = roomsService(() =>
      early-- > 0 ? { applied: false, reason: 'not-due' } : { applied: true },
    );
    await store.applySnapshot('r1', 1, [entry('turn', 0)]);
    await start(store, rooms.apply, options('a'));
    await until(() => store.rooms.get('r1')?.deadlines.length === 0);
    expect(rooms.calls).toHaveLength(3);
    expect(store.rooms.get('r1')?.deadlines).toEqual([]);
  });

  it('never gives up on a deadline the rooms service keeps calling "not due yet" (clocks apart)', async () => {
    const store = new MemoryStore();
    // The rooms service's clock is far behind ours: 25 answers of 'not-due', then it applies.
    let early = 25;
    const rooms = roomsService(() =>
      early-- > 0 ? { applied: false, reason: 'not-due' } : { applied: true },
    );
    const fired: string[] = [];
    await store.applySnapshot('r1', 1, [entry('turn', 0)]);
    await start(
      store,
      rooms.apply,
      options('a', {
        notDueRetryMs: 5,
        notDueMaxRetryMs: 20,
        onFired: (_entry, _lateness, outcome) => fired.push(outcome),
      }),
    );
    await waitFor(async () => store.rooms.get('r1')?.deadlines.length === 0, {
      timeoutMs: 5000,
      intervalMs: 10,
    }).catch(() => undefined);
    expect(rooms.calls).toHaveLength(26);
    expect(fired).toEqual(['applied']);
    expect(store.rooms.get('r1')?.deadlines).toEqual([]);
    // The waits between the 'not-due' answers grow, up to the cap.
    const gaps = rooms.calls.slice(1).map((c, i) => c.at - (rooms.calls[i]?.at ?? 0));
    expect(Math.max(...gaps)).toBeLessThan(200);
    expect(gaps.slice(-5).every((gap) => gap >= 15)).toBe(true);
  });

  it('stops asking about a "not due yet" deadline once a newer snapshot replaces it', async () => {
    const store = new MemoryStore();
    const rooms = roomsService(async (request) => {
      if (request.version !== 1) return { applied: true };
      await sleep(30); // the newer snapshot may come while this answer is on its way
      return { applied: false, reason: 'not-due' };
    });
    await store.applySnapshot('r1', 1, [entry('turn', 0)]);
    const scheduler = await start(
      store,
      rooms.apply,
      options('a', { notDueRetryMs: 5, notDueMaxRetryMs: 20 }),
    );
    await until(() => rooms.calls.length >= 5);
    // The move was played after all: the room's next snapshot has the next turn's deadline.
    await store.applySnapshot('r1', 2, [entry('turn', 100, 1)]);
    scheduler.poke();
    await until(() => rooms.calls.some((c) => c.request.version === 2));
    await sleep(100);
    const last = rooms.calls.at(-1);
    expect(last?.request).toMatchObject({ version: 2, moveIndex: 1 });
    expect(rooms.calls.filter((c) => c.request.version === 2)).toHaveLength(1);
    const afterNewer = rooms.calls.findIndex((c) => c.request.version === 2);
    expect(rooms.calls.slice(afterNewer).every((c) => c.request.version === 2)).toBe(true);
  });

  it('follows a newer snapshot that arrives while the old deadline is with the rooms service', async () => {
    const store = new MemoryStore();
    const rooms = roomsService(async (request) => {
      if (request.version === 1) await store.applySnapshot(request.roomId, 2, [entry('turn', 300, 1)]);
      return request.version === 1 ? { applied: false, reason: 'stale-turn' } : { applied: true };
    });
    await store.applySnapshot('r1', 1, [entry('turn', 0)]);
    await start(store, rooms.apply, options('a'));
    await until(() => rooms.calls.length === 2 && store.rooms.get('r1')?.deadlines.length === 0);
    expect(rooms.calls.map((c) => [c.request.version, c.request.moveIndex])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(store.rooms.get('r1')).toMatchObject({ version: 2, deadlines: [] });
  });

  it('writes back only what no newer snapshot replaced', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    await store.applySnapshot('replaced', 1, [entry('turn', 0)]);
    await store.applySnapshot('kept', 1, [entry('turn', 0), entry('abandoned', 60_000)]);
    const scheduler = await start(store, rooms.apply, options('a', { writeBackAfterMs: 300 }));
    await until(() => rooms.calls.length === 2);
    expect(rooms.calls).toHaveLength(2);
    // The rooms service applied the timeout and published the room's next state.
    await store.applySnapshot('replaced', 2, [entry('post-game', 64_000)]);
    scheduler.noteVersion('replaced', 2);
    await until(() => store.completed.length > 0);
    await sleep(200);
    expect(store.completed.map((c) => c.roomId)).toEqual(['kept']);
    expect(store.rooms.get('kept')?.deadlines.map((d) => d.kind)).toEqual(['abandoned']);
  });

  it('hands its shards over on stop, so another replica fires at once', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    await store.applySnapshot('r1', 1, [entry('turn', 400)]);
    const first = await start(store, rooms.apply, options('a', { leaseMs: 60_000 }));
    await until(() => first.ownedShards.length === 16);
    expect(first.ownedShards).toHaveLength(16);
    await first.stop();
    expect(store.owners()).toEqual(new Map([[null, 16]]));
    await start(store, rooms.apply, options('b'));
    await until(() => rooms.calls.length === 1);
    expect(rooms.calls).toHaveLength(1);
  });

  it('takes over the shards of a replica that died once their leases end', async () => {
    const store = new MemoryStore();
    const rooms = roomsService();
    await store.ensureShards(16);
    // A replica that died holding every shard, with leases running out in 300 ms.
    for (const lease of store.shards.values())
      Object.assign(lease, { owner: 'dead', leaseUntil: new Date(Date.now() + 300) });
    await store.applySnapshot('r1', 1, [entry('turn', 100)]);
    await start(store, rooms.apply, options('b'));
    await sleep(200);
    expect(rooms.calls).toHaveLength(0);
    await until(() => rooms.calls.length === 1);
    expect(rooms.calls).toHaveLength(1);
    expect(store.owners().get('b')).toBe(16);
  });

  it('has at most maxInFlight deadlines with the rooms service at once', async () => {
    const store = new MemoryStore();
    let inFlight = 0;
    let most = 0;
    const rooms = roomsService(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(20);
      inFlight--;
      return { applied: true };
    });
    for (let i = 0; i < 30; i++) await store.applySnapshot(`r${i}`, 1, [entry('turn', 0)]);
    await start(store, rooms.apply, options('a', { maxInFlight: 4 }));
    await until(() => rooms.calls.length === 30);
    expect(rooms.calls).toHaveLength(30);
    expect(most).toBe(4);
  });
});
