import { RecentRooms } from './recent-rooms';
import type { RoomRecord } from './room.schema';

const room = (id: string, version = 1) =>
  ({ _id: id, version, outbox: { e: { id: 'e' } }, outboxAt: new Date() }) as unknown as RoomRecord;

describe('RecentRooms', () => {
  it('keeps the latest copy of each room, without its outbox', () => {
    const recent = new RecentRooms(10);
    recent.set(room('a', 1));
    recent.set(room('a', 2));
    expect(recent.get('a')).toMatchObject({ _id: 'a', version: 2, outbox: null });
    expect(recent.size).toBe(1);
    recent.delete('a');
    expect(recent.get('a')).toBeUndefined();
  });

  it('forgets the least recently written rooms beyond its size', () => {
    const recent = new RecentRooms(2);
    recent.set(room('a'));
    recent.set(room('b'));
    recent.set(room('a', 2)); // a is now the newest
    recent.set(room('c'));
    expect(recent.get('b')).toBeUndefined();
    expect(recent.get('a')?.version).toBe(2);
    expect(recent.get('c')).toBeDefined();
    expect(recent.size).toBe(2);
  });
});
