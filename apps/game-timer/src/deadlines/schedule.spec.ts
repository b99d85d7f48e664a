import { type RoomSchedule, scheduleOf } from '@oasis198/service-kit';
import { roomView, sec, startedGame as started, T0 } from '@oasis198/testing';
import { notDueRetryMs, planAnswer, planFired, rpcRetryMs } from './schedule';

const view: typeof roomView = (state, overrides) => roomView(state, { version: 7, ...overrides });

/** A running turn's schedule: its timeout at T0 + 19 s + 1 ms, its abandonment at T0 + 78 s. */
const running = (): RoomSchedule => scheduleOf(view(started()));

describe('planFired: a fired schedule', () => {
  it('waits while it is early by our clock, then sends its first deadline', () => {
    const schedule = running();
    const due = T0 + 19 * sec + 1;
    expect(planFired(schedule, due - 420)).toEqual({ waitMs: 420 });
    expect(planFired(schedule, due - 1)).toEqual({ waitMs: 1 });
    expect(planFired(schedule, due)).toEqual({
      request: { roomId: 'room-1', kind: 'turn', version: 7, gameNumber: 1, moveIndex: 0 },
      latenessMs: 0,
    });
    expect(planFired(schedule, due + 30)).toMatchObject({ latenessMs: 30 });
  });

  it('is dropped when it carries no deadline', () => {
    expect(planFired({ ...running(), deadlines: [] }, T0)).toEqual({ nothing: true });
  });
});

describe('planAnswer: what the rooms service said', () => {
  const due = T0 + 19 * sec + 1;

  it('is done when the deadline was applied: the room changed, and its next snapshot schedules again', () => {
    expect(planAnswer(running(), { applied: true }, due)).toEqual({ done: true, outcome: 'applied' });
  });

  it("asks again after 100 ms up to 1 s while rooms' clock says 'not due', never giving up", () => {
    const notDue = { applied: false, reason: 'not-due' };
    expect(planAnswer(running(), notDue, due)).toEqual({ retryInMs: 100 });
    expect(planAnswer(running(), notDue, due + 600)).toEqual({ retryInMs: 300 });
    expect(planAnswer(running(), notDue, due + 60_000)).toEqual({ retryInMs: 1000 });
    expect(planAnswer(running(), notDue, due + 3_600_000)).toEqual({ retryInMs: 1000 });
    expect(notDueRetryMs(-50)).toBe(100);
  });

  it('schedules the rest of the same version when the first no longer applied (the abandonment after a turn)', () => {
    const stale = { applied: false, reason: 'stale-turn' };
    expect(planAnswer(running(), stale, due)).toEqual({
      done: true,
      outcome: 'stale',
      rest: {
        roomId: 'room-1',
        version: 7,
        deadlines: [{ kind: 'abandoned', dueAtMs: T0 + 78 * sec, gameNumber: 1, moveIndex: 0 }],
      },
    });
  });

  it('stops at a room that is gone, and after the last deadline', () => {
    expect(planAnswer(running(), { applied: false, reason: 'gone' }, due)).toEqual({
      done: true,
      outcome: 'stale',
    });
    const last = { ...running(), deadlines: running().deadlines.slice(1) };
    expect(planAnswer(last, { applied: false, reason: 'stale-turn' }, due)).toEqual({
      done: true,
      outcome: 'stale',
    });
  });

  it('backs off 1 s, 2 s, 4 s ... up to 15 s while the rooms service cannot be reached', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(rpcRetryMs)).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });
});
