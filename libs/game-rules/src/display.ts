import { MILESTONES, WEAK_BELOW, WINNING_TOTAL, type Milestone } from './constants';
import type { GameState } from './game';
import { toSpecSeconds } from './time';

/** The short room label: the last 6 characters of the room id, upper-cased. */
export function roomLabel(roomId: string): string {
  return roomId.slice(-6).toUpperCase();
}

/** A milestone is reached when the total is at or above it. */
export function milestoneReached(total: number, milestone: Milestone): boolean {
  return total >= milestone;
}

export function milestones(total: number): { milestone: Milestone; reached: boolean }[] {
  return MILESTONES.map((milestone) => ({ milestone, reached: milestoneReached(total, milestone) }));
}

export const MILESTONE_REACHED_TEXT = 'You nailed this milestone';
export const MILESTONE_PENDING_TEXT = "You're not here yet";

/** 'Game Started' while the total is below 9, 'Continuing' from 9 up to below 198. */
export function statusBanner(total: number): 'Game Started' | 'Continuing' | null {
  if (total < 9) return 'Game Started';
  if (total < WINNING_TOTAL) return 'Continuing';
  return null;
}

/** Seconds left in the current turn (negative once past the deadline), or null when no turn runs. */
export function remainingSeconds(state: Pick<GameState, 'deadline'>, nowMs: number): number | null {
  return state.deadline === null ? null : Math.round((state.deadline - toSpecSeconds(nowMs)) * 1000) / 1000;
}

/** Display only: 'Weak' once the timer is below -6 s. */
export function isWeak(remaining: number): boolean {
  return remaining < WEAK_BELOW;
}
