import * as C from './constants';

describe('SPEC §9 and DECISIONS.md constants', () => {
  it('game', () => {
    expect(C.WINNING_TOTAL).toBe(198);
    expect([C.PICK_MIN, C.PICK_MAX]).toEqual([1, 9]);
    expect(C.MILESTONES).toEqual([73, 161, 198]);
    expect(C.MAX_PLAYERS).toBe(2);
    expect(C.OASIS_TIER_CUTOFFS).toEqual([73, 161]);
    expect(C.OASIS_START_USES).toBe(3);
    expect([C.SPECIAL_RANDOM_MIN, C.SPECIAL_RANDOM_MAX]).toEqual([100_000, 999_999]);
    expect(C.MOVE_LIMIT).toBe(250);
    expect(C.AI_SEED_BYTES).toBe(32);
  });

  it('time', () => {
    expect(C.TURN_DURATIONS).toEqual([14, 32, 60, 300]);
    expect(C.DEFAULT_TURN_DURATION).toBe(32);
    expect(C.TURN_GRACE).toBe(4);
    expect(C.LATE_TOLERANCE).toBe(1);
    expect(C.WEAK_BELOW).toBe(-6);
    expect(C.ABANDONED_AFTER).toBe(60);
    expect(C.READY_WINDOW).toBe(50);
    expect(C.READY_GRACE).toBe(14);
    expect(C.POST_GAME_EXPIRY).toBe(64);
    expect(C.WAITING_ROOM_EXPIRY).toBe(600);
    expect(new Date(C.TIME_BASE_MS).toISOString()).toBe('2022-11-17T00:00:00.000Z');
  });

  it('rooms', () => {
    expect(C.ROOM_PAGE_SIZE).toBe(8);
    expect(C.GAME_TYPES).toEqual(['quick-battle', 'tournament']);
    expect(C.PASSCODE_MAX_LENGTH).toBe(4);
  });
});
