import { arenaOf, currentOrNextArena, isRunning, previousArena, untilNextStart } from './schedule';

const HOUR = 3_600_000;
const MIN = 60_000;
const event2 = { eventId: 'event-2', everyMs: HOUR, durationMs: 8 * MIN };
const at = (iso: string) => Date.parse(iso);

describe('arena schedule', () => {
  it('runs event-2 from every full hour for 8 minutes', () => {
    const running = currentOrNextArena(event2, at('2026-12-02T04:03:00Z'));
    expect(running).toEqual({
      arenaId: `event-2:${at('2026-12-02T04:00:00Z')}`,
      eventId: 'event-2',
      startsAt: at('2026-12-02T04:00:00Z'),
      endsAt: at('2026-12-02T04:08:00Z'),
    });
    expect(isRunning(running, at('2026-12-02T04:03:00Z'))).toBe(true);
  });

  it('shows the next arena once one has ended, and the one before it as the previous', () => {
    const now = at('2026-12-02T04:08:00Z');
    expect(currentOrNextArena(event2, now).startsAt).toBe(at('2026-12-02T05:00:00Z'));
    expect(previousArena(event2, now).startsAt).toBe(at('2026-12-02T04:00:00Z'));
    expect(previousArena(event2, at('2026-12-02T04:07:59Z')).startsAt).toBe(at('2026-12-02T03:00:00Z'));
  });

  it('finds an arena from its id, and none for an event without a schedule', () => {
    const running = currentOrNextArena(event2, at('2026-12-02T04:03:00Z'));
    expect(arenaOf([event2], running.arenaId)).toEqual(running);
    expect(arenaOf([event2], `event-6:${running.startsAt}`)).toBeNull();
    expect(arenaOf([event2], 'event-2:soon')).toBeNull();
  });

  it('tells how long until the next start of any schedule', () => {
    const event6 = { eventId: 'event-6', everyMs: 30 * MIN, durationMs: 8 * MIN };
    // During event-2's arena of 04:00, the next start is event-6's at 04:30.
    expect(untilNextStart([event2, event6], at('2026-12-02T04:03:00Z'))).toBe(27 * MIN);
    // At a start, the next one: that very moment has begun.
    expect(untilNextStart([event2], at('2026-12-02T04:00:00Z'))).toBe(HOUR);
    expect(untilNextStart([event2], at('2026-12-02T04:59:59.900Z'))).toBe(100);
    expect(untilNextStart([], at('2026-12-02T04:00:00Z'))).toBe(Infinity);
  });
});
