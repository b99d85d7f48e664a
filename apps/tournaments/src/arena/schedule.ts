import { arenaIdOf, eventOfArena } from '@oasis198/contracts';

/** When an event's arenas run: from the epoch, one every `everyMs`, each `durationMs` long. */
export interface EventSchedule {
  eventId: string;
  everyMs: number;
  durationMs: number;
}

export interface ArenaWindow {
  arenaId: string;
  eventId: string;
  startsAt: number;
  endsAt: number;
}

const windowAt = (schedule: EventSchedule, startsAt: number): ArenaWindow => ({
  arenaId: arenaIdOf(schedule.eventId, startsAt),
  eventId: schedule.eventId,
  startsAt,
  endsAt: startsAt + schedule.durationMs,
});

/**
 * The arena that runs at `nowMs`, else the next one. Starts are whole multiples of everyMs since
 * the epoch, so every replica computes the same arenas (60 min starts at each full hour UTC).
 */
export function currentOrNextArena(schedule: EventSchedule, nowMs: number): ArenaWindow {
  const startsAt = Math.floor(nowMs / schedule.everyMs) * schedule.everyMs;
  if (nowMs < startsAt + schedule.durationMs) return windowAt(schedule, startsAt);
  return windowAt(schedule, startsAt + schedule.everyMs);
}

/** The last arena that ended at or before `nowMs`. */
export function previousArena(schedule: EventSchedule, nowMs: number): ArenaWindow {
  let startsAt = Math.floor(nowMs / schedule.everyMs) * schedule.everyMs;
  while (startsAt + schedule.durationMs > nowMs) startsAt -= schedule.everyMs;
  return windowAt(schedule, startsAt);
}

export const isRunning = (arena: Pick<ArenaWindow, 'startsAt' | 'endsAt'>, nowMs: number): boolean =>
  arena.startsAt <= nowMs && nowMs < arena.endsAt;

/** The arena `arenaId` names, from its event's schedule; null for an event no schedule runs. */
export function arenaOf(schedules: readonly EventSchedule[], arenaId: string): ArenaWindow | null {
  const schedule = schedules.find((s) => s.eventId === eventOfArena(arenaId));
  const startsAt = Number(arenaId.slice(arenaId.indexOf(':') + 1));
  return schedule && Number.isSafeInteger(startsAt) ? windowAt(schedule, startsAt) : null;
}

/** How long until the next arena of any schedule starts (Infinity when none is to come). */
export function untilNextStart(schedules: readonly EventSchedule[], nowMs: number): number {
  let soonest = Infinity;
  for (const schedule of schedules) {
    const { startsAt } = currentOrNextArena(schedule, nowMs);
    const next = startsAt > nowMs ? startsAt : startsAt + schedule.everyMs;
    soonest = Math.min(soonest, next - nowMs);
  }
  return soonest;
}
