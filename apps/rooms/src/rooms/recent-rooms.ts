import type { RoomRecord } from './room.schema';

/**
 * The rooms this replica wrote last, newest last, at most `max` of them (the oldest go first). A
 * record is only ever a first guess: the version guard of the next write decides whether it was
 * still current. Records are treated as immutable.
 */
export class RecentRooms {
  private readonly rooms = new Map<string, RoomRecord>();

  constructor(private readonly max: number) {}

  get(roomId: string): RoomRecord | undefined {
    return this.rooms.get(roomId);
  }

  /** Remembers the room (without its outbox, which a decision never reads). */
  set(room: RoomRecord): void {
    this.rooms.delete(room._id);
    this.rooms.set(room._id, { ...room, outbox: null });
    if (this.rooms.size > this.max) this.rooms.delete(this.rooms.keys().next().value as string);
  }

  delete(roomId: string): void {
    this.rooms.delete(roomId);
  }

  get size(): number {
    return this.rooms.size;
  }
}
