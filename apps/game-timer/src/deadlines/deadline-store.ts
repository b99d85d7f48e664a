import type { DeadlineEntry, RoomDeadlinesRecord, ShardLease } from './deadline.schema';

export interface Completion {
  roomId: string;
  version: number;
  remaining: DeadlineEntry[];
}

/**
 * Where deadlines and shard leases live, as the scheduler and the event consumer use them. The
 * MongoDB repository implements it; every write is one atomic, guarded operation.
 */
export interface DeadlineStore {
  /** Replaces a room's deadlines if `version` is newer than what is stored; false for an older snapshot. */
  applySnapshot(roomId: string, version: number, deadlines: DeadlineEntry[]): Promise<boolean>;
  /** The room is gone: no deadlines from this version on. */
  markGone(roomId: string, version: number): Promise<boolean>;
  /** The rooms of these shards whose next deadline is due by `horizon` (and after `after`, when given). */
  dueIn(shards: readonly number[], horizon: Date, after?: Date): Promise<RoomDeadlinesRecord[]>;
  /** Handled deadlines: each room keeps the rest, if it is still at that version. */
  complete(completions: readonly Completion[]): Promise<void>;
  /** Forgets rooms deleted before `before`. */
  purgeGone(before: Date): Promise<number>;

  /** Creates the shard leases that do not exist yet (all free). */
  ensureShards(count: number): Promise<void>;
  /** Records this replica as alive and answers the replicas seen since `since`. */
  heartbeat(owner: string, now: Date, since: Date): Promise<string[]>;
  readShards(): Promise<ShardLease[]>;
  /** Extends leases still held by `owner`; answers how many were extended. */
  renewShards(owner: string, shards: readonly number[], until: Date): Promise<number>;
  /** Takes a lease if it is free or expired at `now`; false if another replica holds it. */
  claimShard(owner: string, shard: number, now: Date, until: Date): Promise<boolean>;
  /** Gives up leases held by `owner` (all of them when `shards` is omitted). */
  releaseShards(owner: string, shards?: readonly number[]): Promise<void>;
}

export const DEADLINE_STORE = Symbol('DEADLINE_STORE');

export function nextDueAt(deadlines: readonly DeadlineEntry[]): Date | null {
  return deadlines.reduce<Date | null>((min, d) => (min === null || d.dueAt < min ? d.dueAt : min), null);
}
