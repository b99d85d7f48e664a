import {
  ARENA_PRIZES,
  ARENA_SCORE,
  type ArenaOutcome,
  type ArenaStanding,
  type GameFinished,
  isAbortedFinish,
} from '@oasis198/contracts';

/** A player's arena record as standings need it. */
export interface ArenaScore {
  playerId: string;
  name: string;
  score: number;
  wins: number;
  games: number;
  /** When the player reached their current score (ms); joining counts for a score of 0. */
  reachedAt: number;
}

/** Score, then wins, then who reached the score first; the player id keeps the order total. */
export function compareScores(a: ArenaScore, b: ArenaScore): number {
  return (
    b.score - a.score || b.wins - a.wins || a.reachedAt - b.reachedAt || a.playerId.localeCompare(b.playerId)
  );
}

/** The standings, ranked 1, 2, 3, … (the tie-breaks leave no two players equal). */
export function rankScores(scores: readonly ArenaScore[]): ArenaStanding[] {
  return [...scores].sort(compareScores).map(({ playerId, name, score, wins, games }, i) => ({
    rank: i + 1,
    playerId,
    name,
    score,
    wins,
    games,
  }));
}

/** What a finished game is to one of its players. */
export function outcomeFor(game: GameFinished, playerId: string): ArenaOutcome {
  if (isAbortedFinish(game)) return 'aborted';
  if (game.draw) return 'draw';
  return game.winner.id === playerId ? 'win' : 'loss';
}

/**
 * What one game adds to a player's standing. An aborted game counts for nobody (DECISIONS
 * "Aborted games"): no score and no game played, as on the profile.
 */
export const tallyOf = (outcome: ArenaOutcome) => ({
  score: ARENA_SCORE[outcome],
  wins: outcome === 'win' ? 1 : 0,
  games: outcome === 'aborted' ? 0 : 1,
});

/**
 * Whether the player is out of the arena after this game until they join again: they left it, or
 * never moved in a game that was aborted for it.
 */
export function leftArena(game: GameFinished, playerId: string): boolean {
  if (game.draw) return false;
  if (game.loser.id !== playerId) return false;
  return game.endReason === 'left' || isAbortedFinish(game);
}

export interface Prize {
  place: number;
  playerId: string;
  name: string;
  coins: number;
  title: string | null;
}

/**
 * The places paid at the end: the first three of the final standings with a score above 0, so
 * games aborted or left at once win nothing.
 */
export function prizesFor(standings: readonly ArenaStanding[]): Prize[] {
  const played = standings.filter((s) => s.score > 0);
  return ARENA_PRIZES.flatMap(({ place, coins, title }) => {
    const standing = played[place - 1];
    return standing ? [{ place, playerId: standing.playerId, name: standing.name, coins, title }] : [];
  });
}
