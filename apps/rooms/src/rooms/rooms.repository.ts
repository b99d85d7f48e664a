import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { EventEnvelope } from '@oasis198/contracts';
import type { GameState, GameType } from '@oasis198/game-rules';
import { isDuplicateKeyError, outboxFields, outboxOf } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import {
  COUNTER_MODEL,
  type CounterRecord,
  MEMBERSHIP_MODEL,
  type MembershipRecord,
  ROOM_MODEL,
  type RoomRecord,
} from './room.schema';

/** Fields a change may write; identity fields (_id, roomNumber, createdBy, ...) never change. */
const MUTABLE: readonly (keyof RoomRecord)[] = [
  'players',
  'playerCount',
  'gameStarted',
  'gameOver',
  'whosTurn',
  'version',
  'waitingSince',
  'gameStartedAt',
];

/** Rooms, room numbers and memberships in MongoDB. Every write that changes a room is one guarded update. */
@Injectable()
export class RoomsRepository {
  constructor(
    @InjectModel(ROOM_MODEL) readonly rooms: Model<RoomRecord>,
    @InjectModel(MEMBERSHIP_MODEL) private readonly memberships: Model<MembershipRecord>,
    @InjectModel(COUNTER_MODEL) private readonly counters: Model<CounterRecord>,
  ) {}

  /** The next room number, from one atomic counter document. */
  async nextRoomNumber(): Promise<number> {
    const counter = await this.counters
      .findOneAndUpdate({ _id: 'rooms' }, { $inc: { seq: 1 } }, { upsert: true, new: true })
      .lean<CounterRecord>();
    return counter.seq;
  }

  /** The room as stored, tombstones included (callers decide what a tombstone means to them). */
  async find(roomId: string): Promise<RoomRecord | null> {
    return fromStored(await this.rooms.findById(roomId).lean<StoredRoom>());
  }

  async insert(room: RoomRecord, events: readonly EventEnvelope[]): Promise<RoomRecord> {
    const doc = { ...room, ...outboxDocument(events) };
    await this.rooms.collection.insertOne({ ...doc, whosTurn: encodeGameState(room.whosTurn) } as never);
    return doc;
  }

  /**
   * Writes a change if the room is still at `version` and not being deleted: one atomic update
   * that sets the new state, the new version and the events, and removes `published` (outbox keys
   * of events already published, see OutboxRelay.takePublished). Null when someone else changed
   * the room first (the caller reloads and judges again).
   *
   * A published key that this change writes again is not removed: a replica deciding on an older
   * copy of the room makes the events of a version another replica already wrote, and its relay
   * may have published those (its sweep). One update may not both set and unset a path (the
   * database refuses it, which was a 500); the version guard refuses such a write anyway.
   */
  async commit(
    version: number,
    next: RoomRecord,
    events: readonly EventEnvelope[],
    tombstone: { version: number } | undefined,
    published: readonly string[] = [],
  ): Promise<RoomRecord | null> {
    const set: Record<string, unknown> = {};
    for (const field of MUTABLE) set[field] = next[field];
    set['whosTurn'] = encodeGameState(next.whosTurn);
    if (tombstone) {
      set['version'] = tombstone.version;
      set['tombstone'] = true;
    }
    Object.assign(set, outboxFields(events));
    const update: Record<string, unknown> = { $set: set };
    const removed = published.map((key) => `outbox.${key}`).filter((path) => !(path in set));
    if (removed.length) update['$unset'] = Object.fromEntries(removed.map((path) => [path, '']));
    return fromStored(
      await this.rooms
        .findOneAndUpdate({ _id: next._id, version, tombstone: { $ne: true } }, update, { new: true })
        .lean<StoredRoom>(),
    );
  }

  async list(filter: { page: number; pageSize: number; freeSpot: boolean; gameType?: GameType }) {
    const query: Record<string, unknown> = { tombstone: { $ne: true } };
    if (filter.freeSpot) query['playerCount'] = 1;
    if (filter.gameType) query['gameType'] = filter.gameType;
    const [rooms, total] = await Promise.all([
      this.rooms
        .find(query)
        .sort({ roomNumber: -1 })
        .skip((filter.page - 1) * filter.pageSize)
        .limit(filter.pageSize)
        .lean<StoredRoom[]>(),
      this.rooms.countDocuments(query),
    ]);
    return { rooms: rooms.map((room) => fromStored(room) as RoomRecord), total };
  }

  /** Open rooms, oldest first: no passcode, one player waiting, no game yet (Play now's candidates). */
  async openRooms(limit: number): Promise<RoomRecord[]> {
    const rooms = await this.rooms
      .find({ tombstone: { $ne: true }, playerCount: 1, gameStarted: false, passCode: '' })
      .sort({ roomNumber: 1 })
      .limit(limit)
      .lean<StoredRoom[]>();
    return rooms.map((room) => fromStored(room) as RoomRecord);
  }

  /**
   * Takes the named lease if it is free or expired: true when this owner holds it now. One lease
   * document per name, taken by a guarded update (the database serialises the two takers).
   */
  async takeLease(name: string, owner: string, ms: number): Promise<boolean> {
    const leases = this.leases();
    const now = new Date();
    try {
      await leases.insertOne({ _id: name, owner, until: new Date(now.getTime() + ms) });
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const taken = await leases.updateOne(
      { _id: name, until: { $lt: now } },
      { $set: { owner, until: new Date(now.getTime() + ms) } },
    );
    return taken.modifiedCount === 1;
  }

  /** Gives the lease back, if this owner still holds it. */
  async releaseLease(name: string, owner: string): Promise<void> {
    await this.leases().updateOne({ _id: name, owner }, { $set: { until: new Date(0) } });
  }

  /** Named leases (Play now's): one document each, in the rooms database. */
  private leases() {
    return this.counters.db.collection<{ _id: string; owner: string; until: Date }>('leases');
  }

  // ----------------------------------------------------------------------------- memberships

  /** Takes the player's one membership for a room; the existing one when the player already has one. */
  async claimMembership(
    playerId: string,
    roomId: string,
    at: Date,
  ): Promise<{ claimed: true } | { claimed: false; existing: MembershipRecord }> {
    try {
      await this.memberships.collection.insertOne({ _id: playerId, roomId, at } as never);
      return { claimed: true };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const existing = await this.memberships.findById(playerId).lean<MembershipRecord>();
      // Released in between: try once more.
      if (!existing) return this.claimMembership(playerId, roomId, at);
      return { claimed: false, existing };
    }
  }

  async membershipOf(playerId: string): Promise<MembershipRecord | null> {
    return this.memberships.findById(playerId).lean<MembershipRecord>();
  }

  /** Releases memberships of these players in this room (a membership of another room stays). */
  async releaseMemberships(playerIds: readonly string[], roomId: string): Promise<void> {
    if (playerIds.length === 0) return;
    await this.memberships.deleteMany({ _id: { $in: [...playerIds] }, roomId });
  }
}

/** A room as the collection holds it: the game state as its JSON text (see room.schema.ts). */
type StoredRoom = Omit<RoomRecord, 'whosTurn'> & { whosTurn: string | GameState };

const encodeGameState = (state: GameState): string => JSON.stringify(state);

/** The room with its game state parsed; rooms written before kept it as a sub-document. */
function fromStored(room: StoredRoom | null): RoomRecord | null {
  if (!room) return null;
  return typeof room.whosTurn === 'string'
    ? { ...room, whosTurn: JSON.parse(room.whosTurn) as GameState }
    : (room as RoomRecord);
}

function outboxDocument(events: readonly EventEnvelope[]) {
  return { outbox: outboxOf(events), outboxAt: new Date(), tombstone: false };
}
