import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { GameState, GameType } from '@oasis198/game-rules';
import { isDuplicateKeyError, onlyDuplicateKeys } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import {
  COUNTER_MODEL,
  type CounterRecord,
  MEMBERSHIP_MODEL,
  type MembershipRecord,
  ROOM_MODEL,
  type RoomRecord,
} from './room.schema';

/**
 * Room projections, room numbers, memberships and leases in MongoDB. The room log is the rooms'
 * truth; a room's document here is written only by a newer version of it (project).
 */
@Injectable()
export class RoomsRepository {
  constructor(
    @InjectModel(ROOM_MODEL) private readonly rooms: Model<RoomRecord>,
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

  /** `count` room numbers in one increment of the counter: the first of them (the others follow it). */
  async reserveRoomNumbers(count: number): Promise<number> {
    const counter = await this.counters
      .findOneAndUpdate({ _id: 'rooms' }, { $inc: { seq: count } }, { upsert: true, new: true })
      .lean<CounterRecord>();
    return counter.seq - count + 1;
  }

  /** The room as stored, tombstones included (callers decide what a tombstone means to them). */
  async find(roomId: string): Promise<RoomRecord | null> {
    return fromStored(await this.rooms.findById(roomId).lean<StoredRoom>());
  }

  /**
   * Writes the room as projected, unless the document already holds this version or a newer one
   * (a redelivered or out-of-order log message never rolls a room back): one update, guarded by
   * the version, inserting the document when there is none. 'stale' when a newer one was there.
   * 'inserted' tells the caller to make sure the room is not gone (see RoomProjector.project).
   */
  async project(room: RoomRecord): Promise<'written' | 'inserted' | 'stale'> {
    const { _id, ...fields } = room;
    try {
      const result = await this.rooms.collection.updateOne(
        { _id, version: { $lt: room.version } } as never,
        { $set: { ...fields, whosTurn: encodeGameState(room.whosTurn), tombstone: false } },
        { upsert: true },
      );
      return result.upsertedCount > 0 ? 'inserted' : 'written';
    } catch (error) {
      // The upsert's insert met the room at this version or a newer one.
      if (isDuplicateKeyError(error)) return 'stale';
      throw error;
    }
  }

  /**
   * Writes rooms new to the log, in one insert; a room whose document is there already (a retry's)
   * keeps it. The ids of the documents it created, which the caller checks against the log as for
   * project()'s 'inserted'.
   */
  async projectNew(rooms: readonly RoomRecord[]): Promise<string[]> {
    if (rooms.length === 0) return [];
    const docs = rooms.map((room) => ({
      ...room,
      whosTurn: encodeGameState(room.whosTurn),
      tombstone: false,
    }));
    try {
      await this.rooms.collection.insertMany(docs as never[], { ordered: false });
      return rooms.map((room) => room._id);
    } catch (error) {
      if (!onlyDuplicateKeys(error)) throw error;
      const writeErrors = (error as { writeErrors?: Array<{ index?: number }> }).writeErrors ?? [];
      const refused = new Set(writeErrors.map((e) => e.index));
      return rooms.filter((_, i) => !refused.has(i)).map((room) => room._id);
    }
  }

  /** Removes deleted rooms' documents, in one write. */
  async projectDeletedMany(roomIds: readonly string[]): Promise<void> {
    if (roomIds.length === 0) return;
    await this.rooms.collection.deleteMany({ _id: { $in: [...roomIds] } } as never);
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

  /**
   * Takes the memberships of many players, each for its room, in one unordered insert; the indices
   * of those refused because the player already has one (the caller looks into each of them).
   */
  async claimMemberships(
    seats: ReadonlyArray<{ playerId: string; roomId: string }>,
    at: Date,
  ): Promise<number[]> {
    if (seats.length === 0) return [];
    try {
      await this.memberships.collection.insertMany(
        seats.map(({ playerId, roomId }) => ({ _id: playerId, roomId, at }) as never),
        { ordered: false },
      );
      return [];
    } catch (error) {
      if (!onlyDuplicateKeys(error)) throw error;
      const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
      const refused = (Array.isArray(writeErrors) ? writeErrors : [writeErrors ?? error]) as Array<{
        index?: unknown;
      }>;
      return refused.map((e) => e.index).filter((i): i is number => typeof i === 'number');
    }
  }

  /**
   * Moves each player's membership from the room they left to their new one, in one write (a
   * guarded update each, so a membership of any other room stays). How many moved: which ones, when
   * not all, is the caller's to read back.
   */
  async moveMemberships(
    moves: ReadonlyArray<{ playerId: string; from: string; roomId: string }>,
    at: Date,
  ): Promise<number> {
    if (moves.length === 0) return 0;
    const moved = await this.memberships.collection.bulkWrite(
      moves.map(({ playerId, from, roomId }) => ({
        updateOne: { filter: { _id: playerId, roomId: from } as never, update: { $set: { roomId, at } } },
      })),
      { ordered: false },
    );
    return moved.matchedCount;
  }

  /** The memberships of these players (those who have one). */
  async membershipsOf(playerIds: readonly string[]): Promise<MembershipRecord[]> {
    if (playerIds.length === 0) return [];
    return this.memberships.find({ _id: { $in: [...playerIds] } }).lean<MembershipRecord[]>();
  }

  /**
   * Releases each player's membership of its room (a membership of another room stays), in a
   * write per RELEASED_AT_ONCE players: the top-level `_id` list lets FerretDB find them by index
   * (ADR 0023) instead of reading every membership while it holds the write lock.
   */
  async releaseSeats(seats: ReadonlyArray<{ playerId: string; roomId: string }>): Promise<void> {
    for (let i = 0; i < seats.length; i += RELEASED_AT_ONCE) {
      const some = seats.slice(i, i + RELEASED_AT_ONCE);
      await this.memberships.deleteMany({
        _id: { $in: some.map((s) => s.playerId) },
        $or: some.map(({ playerId, roomId }) => ({ _id: playerId, roomId })),
      });
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

/** Memberships one write releases at most: FerretDB's `_id` list by index takes 100 (ADR 0023). */
const RELEASED_AT_ONCE = 98;

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
