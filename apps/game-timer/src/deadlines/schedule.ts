import type { DeadlineDueRequest, DeadlineDueResponse, RoomSchedule } from '@oasis198/contracts';

export type FiredPlan =
  /** Early by this clock, by this long: held until due, or handed back to the server with this delay. */
  | { waitMs: number }
  /** Due: ask the rooms service to apply it. */
  | { request: DeadlineDueRequest; latenessMs: number }
  /** Nothing in it (not written so, but harmless): ack it. */
  | { nothing: true };

/** What to do with a fired schedule now. */
export function planFired(schedule: RoomSchedule, nowMs: number): FiredPlan {
  const first = schedule.deadlines[0];
  if (!first) return { nothing: true };
  if (nowMs < first.dueAtMs) return { waitMs: first.dueAtMs - nowMs };
  return {
    request: {
      roomId: schedule.roomId,
      kind: first.kind,
      version: schedule.version,
      gameNumber: first.gameNumber,
      moveIndex: first.moveIndex,
    },
    latenessMs: nowMs - first.dueAtMs,
  };
}

export type AnswerPlan =
  /**
   * Handled: ack. `rest`, the same version's later deadlines, is scheduled when the first one no
   * longer applied and the room did not change because of it (an applied deadline changes or
   * deletes the room, and the room's next snapshot schedules what follows).
   */
  | { done: true; outcome: 'applied' | 'stale'; rest?: RoomSchedule }
  /** The rooms service's clock says not yet: ask again after this long. */
  | { retryInMs: number };

/** The waits while the rooms service answers 'not-due' (its clock is behind ours). */
const NOT_DUE_MIN_MS = 100;
const NOT_DUE_MAX_MS = 1000;

/**
 * How long to wait before asking again about a deadline the rooms service calls not due yet:
 * half of how late it is by our clock, from 100 ms up to 1 s. The waits grow about 1.5 times each
 * (100, 100, 100, 150, 225 ... 1000), and once due by the rooms clock the deadline is applied at
 * most 1 s late by it. Stateless, so a redelivery to another replica carries on alike.
 */
export const notDueRetryMs = (latenessMs: number): number =>
  Math.min(NOT_DUE_MAX_MS, Math.max(NOT_DUE_MIN_MS, Math.round(latenessMs / 2)));

/** Backoff while the rooms service cannot be reached: 1 s, 2 s, 4 s, ... up to 15 s. */
export const rpcRetryMs = (attempt: number): number =>
  Math.min(15_000, 1000 * 2 ** Math.min(10, Math.max(0, attempt - 1)));

export function planAnswer(schedule: RoomSchedule, answer: DeadlineDueResponse, nowMs: number): AnswerPlan {
  const [first, ...later] = schedule.deadlines;
  if (answer.applied) return { done: true, outcome: 'applied' };
  if (answer.reason === 'not-due') {
    // Never dropped: the deadline stays current for as long as the room is at this turn, and
    // giving up would lose the timeout for good.
    return { retryInMs: notDueRetryMs(nowMs - (first?.dueAtMs ?? nowMs)) };
  }
  if (answer.reason === 'gone' || later.length === 0) return { done: true, outcome: 'stale' };
  return { done: true, outcome: 'stale', rest: { ...schedule, deadlines: later } };
}
