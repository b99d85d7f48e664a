import type { Reward } from './reward.schema';

/** What a player is ranked by: points, then wins (both most first), then name. */
export type Standing = Pick<Reward, 'assets' | 'wins' | 'playerName'>;

const points = (s: Standing): number => s.assets?.points ?? 0;
const wins = (s: Standing): number => s.wins ?? 0;

/** Names in character-code order, as MongoDB compares strings (no collation): '9' < 'Z' < 'a'. */
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The leaderboard's order; 0 when the two share a rank. */
export function compareStanding(a: Standing, b: Standing): number {
  return points(b) - points(a) || wins(b) - wins(a) || byCode(a.playerName, b.playerName);
}

/**
 * The ranks of one page of the leaderboard (standard competition ranking: 1, 2, 2, 4), given the
 * rank of its first row. A row that ties with the row above it shares that rank; any other row's
 * rank is its position, since every row above it is ahead of it.
 */
export function pageRanks(rows: readonly Standing[], firstPosition: number, firstRank: number): number[] {
  const ranks: number[] = [];
  rows.forEach((row, i) => {
    const above = rows[i - 1];
    ranks.push(
      i === 0
        ? firstRank
        : above && compareStanding(above, row) === 0
          ? (ranks[i - 1] as number)
          : firstPosition + i,
    );
  });
  return ranks;
}

/**
 * The MongoDB filter of the records strictly ahead of a standing; counting them gives its rank
 * minus 1. Each branch is a prefix of the leaderboard's index, so the count reads the index.
 */
export function aheadOf(standing: Standing): Record<string, unknown> {
  const p = points(standing);
  const w = wins(standing);
  return {
    $or: [
      { 'assets.points': { $gt: p } },
      { 'assets.points': p, wins: { $gt: w } },
      { 'assets.points': p, wins: w, playerName: { $lt: standing.playerName } },
    ],
  };
}
