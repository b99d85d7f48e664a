import { AppError } from '@oasis198/contracts';
import { drawnGame, wonGame } from '../game-finished.fixtures';
import { parseGameFinished, parseUserDeleted, parseUserNamed } from './events';

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

  it('refuses a won game that does not name both seats, or whose winner and loser are not its players', () => {
    // Payouts and the history read both seats: without them the event could only fail and be retried.
    expect(refused({ ...won, player1: undefined })).toBe('VALIDATION');
    expect(refused({ ...won, player2: { id: 'p2' } })).toBe('VALIDATION');
    expect(refused({ ...won, winner: { ...won.winner, id: 'p3' } })).toBe('VALIDATION');
    expect(refused({ ...won, winner: { ...won.winner, seat: 'player3' } })).toBe('VALIDATION');
  });

  it('refuses a game whose moves, room, end or move list cannot be recorded', () => {
    expect(refused({ ...won, finishedAt: 'yesterday' })).toBe('VALIDATION');
    expect(refused({ ...won, moves: 1.5 })).toBe('VALIDATION');
    expect(refused({ ...won, roomId: '' })).toBe('VALIDATION');
    expect(refused({ ...won, moveList: [{ player: 'player1' }] })).toBe('VALIDATION');
  });

  it('keeps the fields the event names and drops whatever else it carries', () => {
    expect(parseGameFinished({ ...won, extra: 1 })).toEqual(won);
  });

  it('answers the envelope the consumer terminates, with the event named', () => {
    expect(() => parseGameFinished({})).toThrow(new AppError('VALIDATION', 'malformed game.finished event'));
    expect(() => parseUserNamed({ userId: 'u1', name: '' })).toThrow(
      new AppError('VALIDATION', 'malformed user event'),
    );
    expect(() => parseUserDeleted({ userId: 'x'.repeat(65) })).toThrow(
      new AppError('VALIDATION', 'malformed user.deleted event'),
    );
    expect(parseUserNamed({ userId: 'u1', name: 'alice1', extra: true })).toEqual({
      userId: 'u1',
      name: 'alice1',
    });
  });
});
