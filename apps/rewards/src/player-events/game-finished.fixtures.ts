import type { GameDrawn, GameWon, Person } from '@oasis198/contracts';
import { otherSeat, type Seat } from '@oasis198/game-rules';

/** game.finished payloads for the unit and integration tests (not used by the service itself). */

const COMMON = {
  gameId: 'room1:1',
  roomId: 'room1',
  gameNumber: 1,
  duration: 32,
  playedSeconds: 60,
  aiSeed: 'a5'.repeat(32),
  aiCommit: '5a'.repeat(32),
  specialRandom: 123456,
  finishedAt: '2026-01-01T00:00:00.000Z',
};

/**
 * A game `winner` won against `loser` by reaching 198, the winner in seat player1 unless
 * `winnerSeat` says otherwise; both players are also named by seat, as rooms publishes them.
 */
export function wonGame(
  winner: Person,
  loser: Person,
  overrides: Partial<Omit<GameWon, 'winner' | 'loser' | 'player1' | 'player2'>> & { winnerSeat?: Seat } = {},
): GameWon {
  const { winnerSeat = 'player1', ...rest } = overrides;
  const loserSeat = otherSeat(winnerSeat);
  const bySeat = { [winnerSeat]: winner, [loserSeat]: loser } as Record<Seat, Person>;
  return {
    ...COMMON,
    draw: false,
    winner: { ...winner, seat: winnerSeat },
    loser: { ...loser, seat: loserSeat },
    endReason: 'reached198',
    player1: bySeat.player1,
    player2: bySeat.player2,
    moves: 20,
    ...rest,
  };
}

/** A draw between the two players at the move limit. */
export function drawnGame(
  player1: Person,
  player2: Person,
  overrides: Partial<Omit<GameDrawn, 'player1' | 'player2'>> = {},
): GameDrawn {
  return {
    ...COMMON,
    draw: true,
    winner: null,
    loser: null,
    endReason: 'moveLimit',
    player1,
    player2,
    moves: 250,
    ...overrides,
  };
}
