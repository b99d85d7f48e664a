import type { GameWon } from '@oasis198/contracts';
import type { MoveRecord } from '@oasis198/game-rules';
import { drawnGame, wonGame } from './game-finished.fixtures';
import { payoutsFor } from './payouts';

const W = { id: 'w', name: 'winner1' };
const L = { id: 'l', name: 'loser1' };
const game = (endReason: GameWon['endReason'], duration = 32): GameWon =>
  wonGame(W, L, { winnerSeat: 'player2', endReason, duration });
const draw = (duration = 32) => drawnGame(L, W, { duration });

describe('payoutsFor (DECISIONS.md rewards)', () => {
  it('pays the winner 25/10 and the loser 5/1 when 198 is reached', () => {
    expect(payoutsFor(game('reached198'))).toEqual([
      { playerId: 'w', gameId: 'room1:1', playerName: 'winner1', points: 25, coins: 10, wins: 1, titles: [] },
      { playerId: 'l', gameId: 'room1:1', playerName: 'loser1', points: 5, coins: 1, wins: 0, titles: [] },
    ]);
  });

  it.each(['timeout', 'left'] as const)('gives a loser by %s nothing (the winner still 25/10)', (reason) => {
    const [winner, loser] = payoutsFor(game(reason));
    expect(winner).toMatchObject({ points: 25, coins: 10, wins: 1 });
    expect(loser).toMatchObject({ points: 0, coins: 0, wins: 0 });
  });

  it('gives the blitz title to the winner of a 14-second room only', () => {
    for (const duration of [14, 32, 60, 300]) {
      const [winner, loser] = payoutsFor(game('reached198', duration));
      expect(winner?.titles).toEqual(duration === 14 ? ['blitzWinner'] : []);
      expect(loser?.titles).toEqual([]);
    }
  });

  it('pays each player of a draw (the move limit) a played game with 0 points, 0 coins and no title', () => {
    for (const duration of [14, 32]) {
      expect(payoutsFor(draw(duration))).toEqual([
        { playerId: 'l', gameId: 'room1:1', playerName: 'loser1', points: 0, coins: 0, wins: 0, titles: [] },
        { playerId: 'w', gameId: 'room1:1', playerName: 'winner1', points: 0, coins: 0, wins: 0, titles: [] },
      ]);
    }
  });

  it('pays the human of a game against the AI one played game and nothing else; the AI gets no record', () => {
    const ai = { id: 'ai:room1', name: 'AI' };
    const human = { id: 'h', name: 'human1' };
    const expected = [
      { playerId: 'h', gameId: 'room1:1', playerName: 'human1', points: 0, coins: 0, wins: 0, titles: [] },
    ];
    // Won or lost, in a blitz room or a draw, from either seat.
    expect(payoutsFor(wonGame(human, ai, { duration: 14 }))).toEqual(expected);
    expect(payoutsFor(wonGame(ai, human, { winnerSeat: 'player2' }))).toEqual(expected);
    expect(payoutsFor(drawnGame(ai, human))).toEqual(expected);
  });

  describe('an aborted game (DECISIONS.md "Aborted games": a player never moved) pays nothing', () => {
    const ai = { id: 'ai:room1', name: 'AI' };
    const first: MoveRecord = { player: 'player1', number: 3, option: 'plain', aiNumber: 5, total: 3, at: 1 };
    const second: MoveRecord = { ...first, player: 'player2', total: 6, at: 2 };

    it.each(['timeout', 'left'] as const)(
      'a game ended by %s as rooms marks it: no credit at all',
      (reason) => {
        for (const duration of [14, 32]) {
          expect(payoutsFor({ ...game(reason, duration), moves: 0, moveList: [], aborted: true })).toEqual(
            [],
          );
          expect(
            payoutsFor({ ...game(reason, duration), moves: 1, moveList: [first], aborted: true }),
          ).toEqual([]);
        }
        // Against the AI too: no played game for the human.
        expect(payoutsFor(wonGame(ai, W, { endReason: reason, moves: 0, aborted: true }))).toEqual([]);
      },
    );

    it('an event from before the field: aborted when its moves show a player who never moved', () => {
      // The fixture carries no `aborted`, as rooms published game.finished before it.
      const legacy = (moves: number, moveList?: MoveRecord[]): GameWon =>
        moveList ? { ...game('left', 14), moves, moveList } : { ...game('left', 14), moves };
      expect(payoutsFor(legacy(0))).toEqual([]);
      expect(payoutsFor(legacy(1))).toEqual([]);
      expect(payoutsFor(legacy(1, [first]))).toEqual([]);
      expect(payoutsFor(legacy(2, [first, { ...first, at: 2 }]))).toEqual([]);
      const [winner, loser] = payoutsFor(legacy(2, [first, second]));
      expect(winner).toMatchObject({
        playerId: 'w',
        points: 25,
        coins: 10,
        wins: 1,
        titles: ['blitzWinner'],
      });
      expect(loser).toMatchObject({ playerId: 'l', points: 0, coins: 0, wins: 0 });
      expect(payoutsFor(legacy(2))).toHaveLength(2);
    });

    it('a game both players moved in pays as before, whatever ended it', () => {
      const [winner] = payoutsFor({
        ...game('left', 14),
        moves: 2,
        moveList: [first, second],
        aborted: false,
      });
      expect(winner).toMatchObject({ points: 25, coins: 10, wins: 1, titles: ['blitzWinner'] });
    });
  });
});
