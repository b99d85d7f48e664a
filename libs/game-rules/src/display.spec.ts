import {
  isWeak,
  MILESTONE_PENDING_TEXT,
  MILESTONE_REACHED_TEXT,
  milestoneReached,
  milestones,
  remainingSeconds,
  roomLabel,
  statusBanner,
} from './display';
import { fromSpecSeconds } from './time';

describe('roomLabel', () => {
  it('is the last 6 characters of the room id, upper-cased', () => {
    expect(roomLabel('64f1c2e9a7b3d5e6f7a8b9c0')).toBe('A8B9C0');
    expect(roomLabel('abcdef')).toBe('ABCDEF');
    expect(roomLabel('xyz')).toBe('XYZ');
    expect(roomLabel('room-1a2b3c')).toBe('1A2B3C');
  });
});

describe('milestones', () => {
  it('are reached at or above 73, 161 and 198', () => {
    const reached = (total: number) =>
      milestones(total)
        .filter((m) => m.reached)
        .map((m) => m.milestone);
    expect(reached(0)).toEqual([]);
    expect(reached(72)).toEqual([]);
    expect(reached(73)).toEqual([73]);
    expect(reached(160)).toEqual([73]);
    expect(reached(161)).toEqual([73, 161]);
    expect(reached(197)).toEqual([73, 161]);
    expect(reached(198)).toEqual([73, 161, 198]);
    expect(reached(210)).toEqual([73, 161, 198]);
    expect(milestones(0).map((m) => m.milestone)).toEqual([73, 161, 198]);
    expect(milestoneReached(161, 161)).toBe(true);
    expect(milestoneReached(160, 161)).toBe(false);
  });

  it('have SPEC texts', () => {
    expect(MILESTONE_REACHED_TEXT).toBe('You nailed this milestone');
    expect(MILESTONE_PENDING_TEXT).toBe("You're not here yet");
  });
});

describe('statusBanner', () => {
  it("reads 'Game Started' below 9, 'Continuing' from 9 to 197 and nothing from 198", () => {
    expect(statusBanner(0)).toBe('Game Started');
    expect(statusBanner(8)).toBe('Game Started');
    expect(statusBanner(9)).toBe('Continuing');
    expect(statusBanner(100)).toBe('Continuing');
    expect(statusBanner(197)).toBe('Continuing');
    expect(statusBanner(198)).toBeNull();
    expect(statusBanner(205)).toBeNull();
  });
});

describe('remainingSeconds and isWeak', () => {
  it('counts down to the deadline and goes negative after it', () => {
    const deadline = 1000.5;
    const ms = (seconds: number) => fromSpecSeconds(seconds);
    expect(remainingSeconds({ deadline }, ms(990.5))).toBe(10);
    expect(remainingSeconds({ deadline }, ms(1000.5))).toBe(0);
    expect(remainingSeconds({ deadline }, ms(1001.7))).toBe(-1.2);
    expect(remainingSeconds({ deadline }, ms(1000.499))).toBe(0.001);
    expect(remainingSeconds({ deadline: null }, ms(5))).toBeNull();
  });

  it("reads 'Weak' only below -6 s", () => {
    expect(isWeak(0)).toBe(false);
    expect(isWeak(-6)).toBe(false);
    expect(isWeak(-6.001)).toBe(true);
    expect(isWeak(-60)).toBe(true);
    expect(isWeak(5)).toBe(false);
  });
});
