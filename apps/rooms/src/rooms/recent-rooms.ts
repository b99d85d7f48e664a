import { LRUCache } from 'lru-cache';
import type { RoomRecord } from './room.schema';

/**
 * The rooms this replica wrote last, at most `max` of them (the least recently used go
 * first). A record is only ever a first guess: the version guard of the next write decides whether
 * it was still current. Records are treated as immutable.
 */
export class RecentRooms {
  private readonly rooms: LRUCache<string, RoomRecord>;

  constructor(max: number) {
    this.rooms = new LRUCache({ max });
  }

  get(roomId: string): RoomRecord | undefined {
    return this.rooms.get(roomId);
  }

  /** Remembers the room (without its outbox, which a decision never reads). */
  set(room: RoomRecord): void {
    this.rooms.set(room._id, { ...room, outbox: null });
  }

  delete(roomId: string): void {
    this.rooms.delete(roomId);
  }

  get size(): number {
    return this.rooms.size;
  }
}
