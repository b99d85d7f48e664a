import { AppError } from '@oasis198/contracts';
import { drawnGame, wonGame } from '../game-finished.fixtures';
import { parseGameFinished } from './events';

const [alice, bob] = [
  { id: 'p1', name: 'alice' },
  { id: 'p2', name: 'bob' },
];
const won = wonGame(alice, bob, { moves: 30 });
const drawn = drawnGame(alice, bob);

const refused = (data: unknown) => {
  try {
    parseGameFinished(data);
  } catch (error) {
    return error instanceof AppError ? error.code : 'other';
  }
  return 'accepted';
};

describe('parseGameFinished', () => {
  it('accepts a game with a winner and a loser, and a draw with both players', () => {
    expect(parseGameFinished(won)).toEqual(won);
    expect(parseGameFinished(drawn)).toEqual(drawn);
  });

  it('reads a game.finished published before draws existed (no `draw`) as a won game', () => {
    const { draw: _draw, ...old } = won;
    expect(parseGameFinished(old)).toEqual({ ...old, draw: false });
  });

  it('refuses a draw that names a winner, another end reason, or the same player twice (VALIDATION)', () => {
    expect(refused({ ...drawn, winner: won.winner })).toBe('VALIDATION');
    expect(refused({ ...drawn, endReason: 'timeout' })).toBe('VALIDATION');
    expect(refused({ ...drawn, player2: drawn.player1 })).toBe('VALIDATION');
    expect(refused({ ...drawn, player1: undefined })).toBe('VALIDATION');
  });

  it('refuses a won game without a winner, with the move limit as its reason, or not a boolean draw', () => {
    expect(refused({ ...won, winner: null })).toBe('VALIDATION');
    expect(refused({ ...won, endReason: 'moveLimit' })).toBe('VALIDATION');
    expect(refused({ ...won, loser: won.winner })).toBe('VALIDATION');
    expect(refused({ ...won, draw: 'yes' })).toBe('VALIDATION');
    expect(refused({ ...won, gameId: '' })).toBe('VALIDATION');
    expect(refused(null)).toBe('VALIDATION');
  });
});
