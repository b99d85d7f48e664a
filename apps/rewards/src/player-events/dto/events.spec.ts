import { AppError } from '@oasis198/contracts';
import { parseGameFinished } from './events';

const base = {
  gameId: 'room1:1',
  roomId: 'room1',
  gameNumber: 1,
  player1: { id: 'p1', name: 'alice' },
  player2: { id: 'p2', name: 'bob' },
  duration: 32,
  playedSeconds: 300,
  aiSeed: 'a5'.repeat(32),
  aiCommit: '5a'.repeat(32),
  specialRandom: 123456,
  finishedAt: '2026-01-01T00:00:00.000Z',
};
const won = {
  ...base,
  draw: false,
  winner: { id: 'p1', name: 'alice', seat: 'player1' },
  loser: { id: 'p2', name: 'bob', seat: 'player2' },
  endReason: 'reached198',
  moves: 30,
};
const drawn = { ...base, draw: true, winner: null, loser: null, endReason: 'moveLimit', moves: 250 };

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
    expect(refused({ ...drawn, player2: base.player1 })).toBe('VALIDATION');
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
