import { ARENA_MESSAGES, type OpenArenaRoomRequest } from '@oasis198/contracts';
import { arenaBatchRefusal, planSeats, seatsOf } from './arena-batch';

const room = (roomId: string, a: string, b: string): OpenArenaRoomRequest => ({
  roomId,
  arenaId: 'event-9:0',
  players: [
    { id: a, name: a },
    { id: b, name: b },
  ],
});

describe('a batch of arena rooms', () => {
  it('is refused with a player twice, a room twice, or a room of one player', () => {
    expect(arenaBatchRefusal([room('r1', 'a', 'b'), room('r2', 'c', 'd')])).toBeNull();
    expect(arenaBatchRefusal([room('r1', 'a', 'a')])).toBe(ARENA_MESSAGES.samePlayer);
    expect(arenaBatchRefusal([room('r1', 'a', 'b'), room('r1', 'c', 'd')])).toBe(ARENA_MESSAGES.roomTwice);
    expect(arenaBatchRefusal([room('r1', 'a', 'b'), room('r2', 'c', 'b')])).toBe(
      ARENA_MESSAGES.playerInTwoRooms,
    );
  });

  it('opens the rooms whose seats were all taken, and gives back the seats of a busy one', () => {
    const rooms = [room('r1', 'a', 'b'), room('r2', 'c', 'd'), room('r3', 'e', 'f')];
    expect(seatsOf(rooms).map((s) => `${s.playerId}@${s.roomId}`)).toEqual([
      'a@r1',
      'b@r1',
      'c@r2',
      'd@r2',
      'e@r3',
      'f@r3',
    ]);
    const plan = planSeats(rooms, [true, true, true, false, false, false]);
    expect(plan.open.map((r) => r.roomId)).toEqual(['r1']);
    expect([...plan.busy]).toEqual([
      ['r2', { opened: false, busy: ['d'] }],
      ['r3', { opened: false, busy: ['e', 'f'] }],
    ]);
    expect(plan.release).toEqual([{ playerId: 'c', roomId: 'r2' }]);
  });
});
