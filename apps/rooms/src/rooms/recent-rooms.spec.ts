import { RecentRooms } from './recent-rooms';
import type { RoomRecord } from './room.schema';

const room = (id: string, version = 1) => ({ _id: id, version }) as unknown as RoomRecord;

describe('RecentRooms', () => {
  it('keeps the latest copy of each room with its log sequence', () => {
    const recent = new RecentRooms(10);
    recent.set(room('a', 1), 5);
    recent.set(room('a', 2), 9);
    expect(recent.get('a')).toMatchObject({ room: { _id: 'a', version: 2 }, seq: 9 });
    expect(recent.size).toBe(1);
    recent.delete('a');
    expect(recent.get('a')).toBeUndefined();
  });

  it('forgets the least recently written rooms beyond its size', () => {
    const recent = new RecentRooms(2);
    recent.set(room('a'), 1);
    recent.set(room('b'), 2);
    recent.set(room('a', 2), 3); // a is now the newest
    recent.set(room('c'), 4);
    expect(recent.get('b')).toBeUndefined();
    expect(recent.get('a')?.room.version).toBe(2);
    expect(recent.get('c')).toBeDefined();
    expect(recent.size).toBe(2);
  });
});
