import type { ShardLease } from './deadline.schema';

/**
 * Rooms are spread over a fixed number of shards; each shard is fired by exactly one replica at
 * a time, which holds a lease on it. Claiming a few shards per poll, rather than each deadline,
 * keeps the database work of a poll independent of how many deadlines there are.
 */
export const SHARD_COUNT = 16;

/** FNV-1a of the room id: a stable shard for a room, the same on every replica. */
export function shardOf(roomId: string, count = SHARD_COUNT): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < roomId.length; i++) {
    hash ^= roomId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

export interface ShardPlan {
  /** Leases this replica holds and extends. */
  renew: number[];
  /** Free or expired leases it takes. */
  claim: number[];
  /** Leases it gives up so that a newer replica gets its share. */
  release: number[];
}

/**
 * What a replica does with the shard leases at a poll: keep its fair share, ceil(shards /
 * live replicas), by renewing what it holds, claiming free or expired leases, or releasing the
 * excess (the highest shard numbers) for a replica that just joined.
 */
export function planShards(input: {
  owner: string;
  leases: readonly ShardLease[];
  liveReplicas: readonly string[];
  nowMs: number;
}): ShardPlan {
  const { owner, leases, nowMs } = input;
  const live = new Set([...input.liveReplicas, owner]);
  const target = Math.ceil(leases.length / live.size);
  const held = (lease: ShardLease) => lease.owner === owner && new Date(lease.leaseUntil).getTime() > nowMs;
  const free = (lease: ShardLease) => !lease.owner || new Date(lease.leaseUntil).getTime() <= nowMs;
  const mine = leases
    .filter(held)
    .map((l) => l._id)
    .sort((a, b) => a - b);
  if (mine.length > target) return { renew: mine.slice(0, target), claim: [], release: mine.slice(target) };
  const claim = leases
    .filter((l) => !held(l) && free(l))
    .map((l) => l._id)
    .sort((a, b) => a - b)
    .slice(0, target - mine.length);
  return { renew: mine, claim, release: [] };
}
