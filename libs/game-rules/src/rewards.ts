import type { EndReason } from './game';

/** DECISIONS.md "Rewards". */
export const WIN_REWARD = { points: 25, coins: 10 } as const;
export const LOSS_REWARD = { points: 5, coins: 1 } as const;
export const NO_REWARD = { points: 0, coins: 0 } as const;

export const LEVEL_STATUSES = ['rookie', 'challenger', 'expert', 'master', 'legend'] as const;
export type LevelStatusName = (typeof LEVEL_STATUSES)[number];
export const PREMIUM_CATEGORIES = ['bronze', 'silver', 'gold', 'platinum'] as const;
export type PremiumCategory = (typeof PREMIUM_CATEGORIES)[number];
export const CHAMPION_TITLES = [
  'blitzWinner',
  'eventsWinner',
  'cityWinner',
  'countryWinner',
  'continentWinner',
  'worldWinner',
] as const;
export type ChampionTitle = (typeof CHAMPION_TITLES)[number];
/** The turn duration whose first win earns the blitz title. */
export const BLITZ_DURATION = 14;

export type Outcome = 'win' | 'loss' | 'draw';

/**
 * Points and coins for one player's result. A loser by timeout or by leaving gets nothing, and so
 * does each player of a draw (the move limit).
 */
export function rewardFor(outcome: Outcome, endReason: EndReason): { points: number; coins: number } {
  // A fresh object each time, so a caller that adds to it cannot change the constants.
  if (outcome === 'win') return { ...WIN_REWARD };
  if (outcome === 'draw') return { ...NO_REWARD };
  return endReason === 'reached198' ? { ...LOSS_REWARD } : { ...NO_REWARD };
}

/** level = 1 + floor(points / 100). */
export function levelFor(points: number): number {
  return 1 + Math.floor(Math.max(0, points) / 100);
}

/** rookie 1-4, challenger 5-9, expert 10-19, master 20-49, legend 50+. */
export function levelStatusName(level: number): LevelStatusName {
  if (level >= 50) return 'legend';
  if (level >= 20) return 'master';
  if (level >= 10) return 'expert';
  if (level >= 5) return 'challenger';
  return 'rookie';
}

/** SPEC's levelStatus: exactly one true flag, plus the level. */
export function levelStatusFor(points: number): Record<LevelStatusName, boolean> & { level: number } {
  const level = levelFor(points);
  const name = levelStatusName(level);
  const flags = Object.fromEntries(LEVEL_STATUSES.map((s) => [s, s === name])) as Record<
    LevelStatusName,
    boolean
  >;
  return { ...flags, level };
}

/** The premium category to show: the one true flag, else "none". */
export function premiumCategoryOf(
  categories: Partial<Record<PremiumCategory, boolean>>,
): PremiumCategory | 'none' {
  return PREMIUM_CATEGORIES.find((c) => categories[c] === true) ?? 'none';
}
