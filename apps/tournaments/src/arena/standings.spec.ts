import type { GameFinished } from '@oasis198/contracts';
import fc from 'fast-check';
import { type ArenaScore, leftArena, outcomeFor, prizesFor, rankScores, tallyOf } from './standings';

const move = (player: 'player1' | 'player2') => ({
  player,
  number: 5,
  option: 'plus' as never,
  aiNumber: 3,
  total: 5,
  at: 1,
});

function game(over: Partial<GameFinished> & Pick<GameFinished, 'endReason'>): GameFinished {
  const a = { id: 'a', name: 'A' };
  const b = { id: 'b', name: 'B' };
  return {
    gameId: 'r:1',
    roomId: 'r',
    gameNumber: 1,
    player1: a,
    player2: b,
    duration: 14,
    playedSeconds: 10,
    aiSeed: null,
    aiCommit: null,
    specialRandom: 123456,
    moves: 2,
    moveList: [move('player1'), move('player2')],
    finishedAt: new Date(0).toISOString(),
    draw: false,
    winner: { ...a, seat: 'player1' },
    loser: { ...b, seat: 'player2' },
    ...over,
  } as GameFinished;
}

const score = (playerId: string, over: Partial<ArenaScore> = {}): ArenaScore => ({
  playerId,
  name: playerId.toUpperCase(),
  score: 0,
  wins: 0,
  games: 1,
  reachedAt: 0,
  ...over,
});

describe('arena score', () => {
  it('gives a win 2, a draw 1, a loss 0 and an aborted game 0 for both', () => {
    const scores = (g: ReturnType<typeof game>) => ['a', 'b'].map((p) => tallyOf(outcomeFor(g, p)).score);
    expect(scores(game({ endReason: 'reached198' }))).toEqual([2, 0]);
    expect(scores(game({ endReason: 'moveLimit', draw: true, winner: null, loser: null } as never))).toEqual([
      1, 1,
    ]);
    const aborted = game({ endReason: 'timeout', moves: 1, moveList: [move('player1')] });
    expect([outcomeFor(aborted, 'a'), outcomeFor(aborted, 'b')]).toEqual(['aborted', 'aborted']);
  });

  it('counts a played game and a win, and an aborted game as no game at all', () => {
    expect(tallyOf('win')).toEqual({ score: 2, wins: 1, games: 1 });
    expect(tallyOf('loss')).toEqual({ score: 0, wins: 0, games: 1 });
    expect(tallyOf('aborted')).toEqual({ score: 0, wins: 0, games: 0 });
  });

  it('takes out of the arena who left a game, or never moved in an aborted one', () => {
    expect(leftArena(game({ endReason: 'left' }), 'b')).toBe(true);
    expect(leftArena(game({ endReason: 'left' }), 'a')).toBe(false);
    expect(leftArena(game({ endReason: 'timeout', moves: 1, moveList: [move('player1')] }), 'b')).toBe(true);
    expect(leftArena(game({ endReason: 'timeout' }), 'b')).toBe(false);
    expect(leftArena(game({ endReason: 'reached198' }), 'b')).toBe(false);
  });
});

describe('rankScores', () => {
  it('ranks by score, then wins, then who reached the score first', () => {
    const ranked = rankScores([
      score('late', { score: 4, wins: 1, reachedAt: 20 }),
      score('early', { score: 4, wins: 1, reachedAt: 10 }),
      score('wins', { score: 4, wins: 2, reachedAt: 30 }),
      score('top', { score: 6, wins: 3, reachedAt: 40 }),
      score('none'),
    ]);
    expect(ranked.map((s) => [s.rank, s.playerId])).toEqual([
      [1, 'top'],
      [2, 'wins'],
      [3, 'early'],
      [4, 'late'],
      [5, 'none'],
    ]);
  });

  it('orders the same players the same way whatever order they come in', () => {
    const scores = fc.uniqueArray(
      fc.record({
        playerId: fc.string({ minLength: 1, maxLength: 4 }),
        name: fc.constant('n'),
        score: fc.nat(10),
        wins: fc.nat(5),
        games: fc.nat(10),
        reachedAt: fc.nat(100),
      }),
      { selector: (s) => s.playerId, maxLength: 12 },
    );
    fc.assert(
      fc.property(scores, (list) => {
        const once = rankScores(list);
        expect(rankScores([...list].reverse())).toEqual(once);
        for (const [i, after] of once.slice(1).entries()) {
          const before = once[i] ?? after;
          expect(
            before.score > after.score || (before.score === after.score && before.wins >= after.wins),
          ).toBe(true);
        }
      }),
    );
  });
});

describe('prizesFor', () => {
  it('pays the first three who scored: 100 coins and the title, 50, 25', () => {
    const standings = rankScores([
      score('a', { score: 6 }),
      score('b', { score: 4 }),
      score('c', { score: 1 }),
      score('d'),
    ]);
    expect(prizesFor(standings)).toEqual([
      { place: 1, playerId: 'a', name: 'A', coins: 100, title: 'eventsWinner' },
      { place: 2, playerId: 'b', name: 'B', coins: 50, title: null },
      { place: 3, playerId: 'c', name: 'C', coins: 25, title: null },
    ]);
  });

  it('pays nobody with no score: who played no game, or only lost or aborted ones', () => {
    const standings = rankScores([
      score('a', { score: 2 }),
      score('idle', { games: 0 }),
      score('aborts', { games: 3 }),
    ]);
    expect(prizesFor(standings).map((p) => p.playerId)).toEqual(['a']);
  });
});
