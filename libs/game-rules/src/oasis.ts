import { OASIS_START_USES, OASIS_TIER_CUTOFFS, WINNING_TOTAL } from './constants';

/** The five Support Oasis power-ups. */
export const OASIS_OPTIONS = ['double', 'extra', 'added', 'bonus', 'minus'] as const;
export type OasisOption = (typeof OASIS_OPTIONS)[number];
export const MOVE_OPTIONS = ['plain', ...OASIS_OPTIONS] as const;
export type MoveOption = (typeof MOVE_OPTIONS)[number];

/** SPEC's labels for each option. */
export const OPTION_LABELS: Readonly<Record<MoveOption, string>> = {
  plain: 'Plain',
  double: 'Double',
  bonus: 'Add extra 1',
  added: 'Add extra 4',
  extra: 'Add extra 7',
  minus: 'Negative 2 X',
};

/** Remaining uses of each option, plus the matched credit. */
export interface OasisCounts {
  double: number;
  extra: number;
  minus: number;
  added: number;
  bonus: number;
  matched: number;
}

export function freshOasis(): OasisCounts {
  return {
    double: OASIS_START_USES,
    extra: OASIS_START_USES,
    minus: OASIS_START_USES,
    added: OASIS_START_USES,
    bonus: OASIS_START_USES,
    matched: 0,
  };
}

/** How much a pick n adds to the total with an option (before the total is floored at 0). */
export function optionEffect(option: MoveOption, n: number): number {
  switch (option) {
    case 'plain':
      return n;
    case 'double':
      return 2 * n;
    case 'extra':
      return n + 7;
    case 'added':
      return n + 4;
    case 'bonus':
      return n + 1;
    case 'minus':
      return -2 * n;
  }
}

export type OasisTier = 1 | 2 | 3;

/** The tier for a total: 1 for 0-72, 2 for 73-160, 3 for 161-197, null from 198 on. */
export function oasisTier(total: number): OasisTier | null {
  if (total >= WINNING_TOTAL) return null;
  if (total >= OASIS_TIER_CUTOFFS[1]) return 3;
  if (total >= OASIS_TIER_CUTOFFS[0]) return 2;
  return 1;
}

const TIER_OPTIONS: Readonly<Record<OasisTier, readonly OasisOption[]>> = {
  1: ['double', 'extra', 'bonus'],
  2: ['extra', 'added', 'bonus'],
  3: ['added', 'bonus', 'minus'],
};

/** Options offered at a total (DECISIONS.md: the first reading of SPEC §4). */
export function offeredOptions(total: number): readonly OasisOption[] {
  const tier = oasisTier(total);
  return tier === null ? [] : TIER_OPTIONS[tier];
}

/** An option can be used when its remaining count plus the matched credit is above 0. */
export function hasUses(counts: OasisCounts, option: OasisOption): boolean {
  return counts[option] + counts.matched > 0;
}

/** Options a player may pick now: offered at the total and with uses left. */
export function usableOptions(total: number, counts: OasisCounts): OasisOption[] {
  return offeredOptions(total).filter((option) => hasUses(counts, option));
}

/**
 * Match bookkeeping after a move. A pick equal to the AI's number raises matched by 1 and costs
 * nothing. An unmatched non-plain move costs 1 matched if there is any, otherwise 1 use of the
 * option. An unmatched plain move costs nothing.
 */
export function bookkeep(counts: OasisCounts, option: MoveOption, matched: boolean): OasisCounts {
  if (matched) return { ...counts, matched: counts.matched + 1 };
  if (option === 'plain') return counts;
  if (counts.matched > 0) return { ...counts, matched: counts.matched - 1 };
  return { ...counts, [option]: counts[option] - 1 };
}
