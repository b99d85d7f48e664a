import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import {
  type DeadlineEntry,
  ROOM_DEADLINES_MODEL,
  type RoomDeadlinesRecord,
  SHARD_LEASE_MODEL,
  type ShardLease,
  TIMER_REPLICA_MODEL,
  type TimerReplica,
} from './deadline.schema';
import { type Completion, type DeadlineStore, nextDueAt } from './deadline-store';
import { shardOf } from './shards';

const FREE = new Date(0);
function isDuplicateKey(error: unknown): boolean {
  if ((error as { code?: number })?.code === 11000) return true;
  const writeErrors = (error as { writeErrors?: { code?: number }[] })?.writeErrors;
  return Array.isArray(writeErrors) && writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000);
}

/** The deadline store in MongoDB: one document per room and per shard; every write guarded. */
@Injectable()
export class DeadlinesRepository implements DeadlineStore {
  constructor(
    @InjectModel(ROOM_DEADLINES_MODEL) private readonly deadlines: Model<RoomDeadlinesRecord>,
    @InjectModel(SHARD_LEASE_MODEL) private readonly shards: Model<ShardLease>,
    @InjectModel(TIMER_REPLICA_MODEL) private readonly replicas: Model<TimerReplica>,
  ) {}

  async applySnapshot(roomId: string, version: number, deadlines: DeadlineEntry[]): Promise<boolean> {
    return this.writeIfNewer(roomId, version, { deadlines, nextDueAt: nextDueAt(deadlines), goneAt: null });
  }

  async markGone(roomId: string, version: number): Promise<boolean> {
    return this.writeIfNewer(roomId, version, { deadlines: [], nextDueAt: null, goneAt: new Date() });
  }

  /**
   * Writes the room's record if `version` is newer than the stored one: an update guarded by
   * version (the usual case: the room's record exists), else an insert (a new room), and if a
   * record appeared in between (another replica), the guarded update again. Records are never
   * deleted while a snapshot of their room can still arrive (see purgeGone), so an insert that
   * collides followed by an update that matches nothing means the stored record is at least as
   * new. (One guarded upsert would be equivalent, but FerretDB scans the whole collection for an
   * upsert that inserts.) Update first: one write per snapshot, where inserting first cost a failed
   * insert for every snapshot but the first (docs/benchmarks.md).
   */
  private async writeIfNewer(
    roomId: string,
    version: number,
    fields: Pick<RoomDeadlinesRecord, 'deadlines' | 'nextDueAt' | 'goneAt'>,
  ): Promise<boolean> {
    const record = { ...fields, version, shard: shardOf(roomId) };
    const update = () =>
      this.deadlines.updateOne({ _id: roomId, version: { $lt: version } }, { $set: record });
    if ((await update()).matchedCount > 0) return true;
    try {
      await this.deadlines.collection.insertOne({ _id: roomId, ...record } as never);
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    return (await update()).matchedCount > 0;
  }

  async dueIn(shards: readonly number[], horizon: Date, after?: Date): Promise<RoomDeadlinesRecord[]> {
    if (shards.length === 0) return [];
    const nextDueAt = after ? { $gt: after, $lte: horizon } : { $lte: horizon };
    return this.deadlines.find({ nextDueAt, shard: { $in: [...shards] } }).lean<RoomDeadlinesRecord[]>();
  }

  /**
   * One guarded update per room, one after the other. (Not bulkWrite: FerretDB v1 stops
   * answering every client after a bulk update of about 100 statements.)
   */
  async complete(completions: readonly Completion[]): Promise<void> {
    for (const { roomId, version, remaining } of completions) {
      await this.deadlines.updateOne(
        { _id: roomId, version },
        { $set: { deadlines: remaining, nextDueAt: nextDueAt(remaining) } },
      );
    }
  }

  async purgeGone(before: Date): Promise<number> {
    const result = await this.deadlines.deleteMany({ goneAt: { $lte: before } });
    // Replicas that died without a clean stop.
    await this.replicas.deleteMany({ seenAt: { $lte: before } });
    return result.deletedCount;
  }

  // --------------------------------------------------------------------------- shard leases

  async ensureShards(count: number): Promise<void> {
    const existing = new Set((await this.readShards()).map((s) => s._id));
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !existing.has(i));
    if (missing.length === 0) return;
    try {
      await this.shards.collection.insertMany(
        missing.map((i) => ({ _id: i, owner: null, leaseUntil: FREE }) as never),
        { ordered: false },
      );
    } catch (error) {
      // Another replica created some at the same moment.
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async heartbeat(owner: string, now: Date, since: Date): Promise<string[]> {
    const seen = await this.replicas.updateOne({ _id: owner }, { $set: { seenAt: now } });
    if (seen.matchedCount === 0) {
      await this.replicas.collection
        .insertOne({ _id: owner, seenAt: now } as never)
        .catch((error: unknown) => {
          if (!isDuplicateKey(error)) throw error;
        });
    }
    const live = await this.replicas.find({ seenAt: { $gte: since } }).lean<TimerReplica[]>();
    return live.map((r) => r._id);
  }

  async readShards(): Promise<ShardLease[]> {
    return this.shards.find().lean<ShardLease[]>();
  }

  async renewShards(owner: string, shards: readonly number[], until: Date): Promise<number> {
    if (shards.length === 0) return 0;
    const result = await this.shards.updateMany(
      { _id: { $in: [...shards] }, owner },
      { $set: { leaseUntil: until } },
    );
    return result.matchedCount;
  }

  async claimShard(owner: string, shard: number, now: Date, until: Date): Promise<boolean> {
    const result = await this.shards.updateOne(
      { _id: shard, leaseUntil: { $lte: now } },
      { $set: { owner, leaseUntil: until } },
    );
    return result.matchedCount > 0;
  }

  async releaseShards(owner: string, shards?: readonly number[]): Promise<void> {
    await this.shards.updateMany(shards ? { _id: { $in: [...shards] }, owner } : { owner }, {
      $set: { owner: null, leaseUntil: FREE },
    });
    if (!shards) await this.replicas.deleteOne({ _id: owner });
  }
}
