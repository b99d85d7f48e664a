import type { DeadlineKind } from '@oasis198/contracts';
import { Schema } from 'mongoose';

export const ROOM_DEADLINES_MODEL = 'RoomDeadlines';
export const SHARD_LEASE_MODEL = 'ShardLease';
export const TIMER_REPLICA_MODEL = 'TimerReplica';

/** One deadline of a room: what falls due when, and which turn it was derived for. */
export interface DeadlineEntry {
  kind: DeadlineKind;
  dueAt: Date;
  gameNumber: number;
  moveIndex: number;
}

/**
 * The deadlines of one room, as derived from its latest snapshot. One document per room, so a
 * snapshot replaces the room's whole set in one write guarded by the room version: an older
 * snapshot never overwrites a newer one, and a set is never half written.
 */
export interface RoomDeadlinesRecord {
  /** The room id. */
  _id: string;
  /** The shard the room belongs to (shardOf(roomId)); a replica fires the rooms of the shards it holds. */
  shard: number;
  /** The room version the deadlines were derived from. */
  version: number;
  /** Pending deadlines, earliest first. */
  deadlines: DeadlineEntry[];
  /** deadlines[0].dueAt, or null when none is pending. */
  nextDueAt: Date | null;
  /** Set when the room was deleted: the record stays a while so a late snapshot cannot revive it. */
  goneAt: Date | null;
}

/** Who fires the deadlines of one shard of rooms, until when. */
export interface ShardLease {
  _id: number;
  owner: string | null;
  leaseUntil: Date;
}

/** A running timer replica, so the others can hand it its share of the shards. */
export interface TimerReplica {
  _id: string;
  seenAt: Date;
}

const entry = new Schema<DeadlineEntry>(
  {
    kind: { type: String, required: true },
    dueAt: { type: Date, required: true },
    gameNumber: { type: Number, required: true },
    moveIndex: { type: Number, required: true },
  },
  { _id: false },
);

export const RoomDeadlinesSchema = new Schema<RoomDeadlinesRecord>(
  {
    _id: { type: String, required: true },
    shard: { type: Number, required: true },
    version: { type: Number, required: true },
    deadlines: { type: [entry], default: [] },
    nextDueAt: { type: Date, default: null },
    goneAt: { type: Date, default: null },
  },
  { collection: 'deadlines', versionKey: false, minimize: false },
);
RoomDeadlinesSchema.index({ nextDueAt: 1 });

export const ShardLeaseSchema = new Schema<ShardLease>(
  {
    _id: { type: Number, required: true },
    owner: { type: String, default: null },
    leaseUntil: { type: Date, required: true },
  },
  { collection: 'shards', versionKey: false },
);

export const TimerReplicaSchema = new Schema<TimerReplica>(
  { _id: { type: String, required: true }, seenAt: { type: Date, required: true } },
  { collection: 'replicas', versionKey: false },
);
