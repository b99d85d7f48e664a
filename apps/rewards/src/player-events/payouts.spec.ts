import type { GameFinished } from '@oasis198/contracts';
import { payoutsFor } from './payouts';

const game = (endReason: GameFinished['endReason'], duration = 32): GameFinished => ({
  gameId: 'room1:1',
  roomId: 'room1',
  gameNumber: 1,
  winner: { id: 'w', name: 'winner1', seat: 'player2' },
  loser: { id: 'l', name: 'loser1', seat: 'player1' },
  endReason,
  duration,
  playedSeconds: 90,
  specialRandom: 111111,
  moves: 20,
  finishedAt: '2026-01-01T00:00:00.000Z',
});

describe('payoutsFor (DECISIONS.md rewards)', () => {
  it('pays the winner 25/10 and the loser 5/1 when 198 is reached', () => {
    expect(payoutsFor(game('reached198'))).toEqual([
      { playerId: 'w', playerName: 'winner1', points: 25, coins: 10, titles: [] },
      { playerId: 'l', playerName: 'loser1', points: 5, coins: 1, titles: [] },
    ]);
  });

  it.each(['timeout', 'left'] as const)('gives a loser by %s nothing (the winner still 25/10)', (reason) => {
    const [winner, loser] = payoutsFor(game(reason));
    expect(winner).toMatchObject({ points: 25, coins: 10 });
    expect(loser).toMatchObject({ points: 0, coins: 0 });
  });

  it('gives the blitz title to the winner of a 14-second room only', () => {
    for (const duration of [14, 32, 60, 300]) {
      const [winner, loser] = payoutsFor(game('reached198', duration));
      expect(winner.titles).toEqual(duration === 14 ? ['blitzWinner'] : []);
      expect(loser.titles).toEqual([]);
    }
  });
});
