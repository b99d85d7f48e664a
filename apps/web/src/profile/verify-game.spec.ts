import { playedGame } from '../testing/fixtures';
import { checkPlayedGame } from './verify-game';

describe('checkPlayedGame', () => {
  it('passes a game played through the engine', () => {
    const game = playedGame();
    expect(checkPlayedGame(game)).toEqual({
      kind: 'checked',
      aiValid: true,
      rulesValid: true,
      problems: [],
      replayed: game.moves,
    });
  });

  it('fails a history that does not end as its moves do', () => {
    const game = playedGame();
    expect(checkPlayedGame({ ...game, moves: game.moves + 1 })).toMatchObject({
      rulesValid: false,
      problems: [`the history says ${game.moves + 1} moves, the replay has ${game.moves}`],
    });
    expect(checkPlayedGame({ ...game, endReason: 'moveLimit', result: 'draw' })).toMatchObject({
      rulesValid: false,
      problems: [`a draw by the move limit needs 250 moves, the replay has ${game.moves}`],
    });
    const short = { ...game, moveList: (game.moveList ?? []).slice(0, 3), moves: 3 };
    expect(checkPlayedGame(short)).toMatchObject({
      aiValid: true,
      problems: ['the last move does not reach 198'],
    });
  });

  it('does not pass the rules of a game whose seed is malformed, since nothing could be replayed', () => {
    expect(checkPlayedGame(playedGame({ aiSeed: 'not-a-seed' }))).toMatchObject({
      kind: 'checked',
      aiValid: false,
      rulesValid: false,
      problems: ['the seed is not 64 lowercase hex characters'],
    });
  });

  it('cannot check a game without a seed or without its moves', () => {
    expect(checkPlayedGame(playedGame({ aiSeed: null }))).toEqual({
      kind: 'unverifiable',
      reason: 'no-seed',
    });
    expect(checkPlayedGame(playedGame({ moveList: null }))).toEqual({
      kind: 'unverifiable',
      reason: 'not-recorded',
    });
  });
});
