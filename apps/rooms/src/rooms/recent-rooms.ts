import { LRUCache } from 'lru-cache';
import type { RoomRecord } from './room.schema';

/** A room as this replica last logged it, with its sequence in the room log. */
export interface RecentRoom {
  room: RoomRecord;
  seq: number;
}

/**
 * The rooms this replica logged last, at most `max` of them (the least recently used go first).
 * A record is only ever a first guess: the expected last sequence of the next append decides
 * whether it was still current. Records are treated as immutable.
 */
export class RecentRooms {
  private readonly rooms: LRUCache<string, RecentRoom>;

  constructor(max: number) {
    this.rooms = new LRUCache({ max });
  }

  get(roomId: string): RecentRoom | undefined {
    return this.rooms.get(roomId);
  }

  set(room: RoomRecord, seq: number): void {
    this.rooms.set(room._id, { room, seq });
  }

  delete(roomId: string): void {
    this.rooms.delete(roomId);
  }

  get size(): number {
    return this.rooms.size;
  }
}
