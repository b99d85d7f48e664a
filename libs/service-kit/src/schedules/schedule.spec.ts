import { applyTimeout, initialGameState } from '@oasis198/game-rules';
import { roomView, sec, startedGame as started, T0 } from '@oasis198/testing';
import { decodeSchedule, encodeSchedule, fireAtMs, type RoomSchedule, scheduleOf } from './schedule';

const view: typeof roomView = (state, overrides) => roomView(state, { version: 7, ...overrides });

/** A running turn's schedule: its timeout at T0 + 19 s + 1 ms, its abandonment at T0 + 78 s. */
const running = (): RoomSchedule => scheduleOf(view(started()));

describe('scheduleOf: a room snapshot becomes its schedule', () => {
  it('carries the room, its version and every deadline of that version, earliest first', () => {
    expect(running()).toEqual({
      roomId: 'room-1',
      version: 7,
      deadlines: [
        { kind: 'turn', dueAtMs: T0 + 19 * sec + 1, gameNumber: 1, moveIndex: 0 },
        { kind: 'abandoned', dueAtMs: T0 + 78 * sec, gameNumber: 1, moveIndex: 0 },
      ],
    });
  });

  it('has no deadline for an idle full room: the timer cancels the room schedule', () => {
    expect(scheduleOf(view(initialGameState())).deadlines).toEqual([]);
  });

  it('gives a finished game only its post-game expiry', () => {
    const ended = applyTimeout(started(), { gameNumber: 1, moveIndex: 0 }, { nowMs: T0 + 20 * sec });
    if (!ended.ok) throw new Error(ended.message);
    expect(scheduleOf(view(ended.state)).deadlines).toEqual([
      { kind: 'post-game', dueAtMs: T0 + 84 * sec, gameNumber: 1, moveIndex: 0 },
    ]);
  });

  it('asks the server to fire the first deadline a lead ahead of it (its scheduler ticks every 250 ms)', () => {
    expect(fireAtMs(running(), 500)).toBe(T0 + 19 * sec + 1 - 500);
    expect(fireAtMs({ ...running(), deadlines: [] }, 500)).toBeNull();
  });

  it('round-trips through the message body, and refuses anything else', () => {
    const schedule = running();
    expect(decodeSchedule(encodeSchedule(schedule))).toEqual(schedule);
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    expect(decodeSchedule(new TextEncoder().encode('not json'))).toBeNull();
    expect(decodeSchedule(bytes({ roomId: 'r', version: 1 }))).toBeNull();
    expect(decodeSchedule(bytes({ ...schedule, version: 'x' }))).toBeNull();
    expect(
      decodeSchedule(
        bytes({ ...schedule, deadlines: [{ kind: 'nap', dueAtMs: 1, gameNumber: 1, moveIndex: 0 }] }),
      ),
    ).toBeNull();
  });
});
