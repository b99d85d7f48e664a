import { freshReward, type Reward } from './reward.schema';
import { toRewardView } from './reward-view';

const stored = (points: number): Reward => ({
  ...freshReward('p1', 'player1', 0),
  assets: { points, coins: 3 },
  createdAt: new Date(),
  updatedAt: new Date(),
});

describe('toRewardView', () => {
  it("answers SPEC §3's fields and the wins only (no internal bookkeeping)", () => {
    const view = toRewardView(stored(0));
    expect(Object.keys(view).sort()).toEqual(
      [
        'assets',
        'categories',
        'championStatus',
        'levelStatus',
        'playedGames',
        'playerId',
        'playerName',
        'wins',
      ].sort(),
    );
    expect(view.playerId).toBe('p1');
  });

  it.each([
    [0, 1, 'rookie'],
    [399, 4, 'rookie'],
    [400, 5, 'challenger'],
    [999, 10, 'expert'],
    [1900, 20, 'master'],
    [4900, 50, 'legend'],
  ])('derives level and status from %i points', (points, level, status) => {
    const { levelStatus } = toRewardView(stored(points));
    expect(levelStatus.level).toBe(level);
    expect(Object.entries(levelStatus).filter(([key, value]) => key !== 'level' && value)).toEqual([
      [status, true],
    ]);
  });

  it('reads missing flags as false', () => {
    const partial = { ...stored(0), categories: { gold: true }, championStatus: {} } as unknown as Reward;
    const view = toRewardView(partial);
    expect(view.categories).toEqual({ bronze: false, silver: false, gold: true, platinum: false });
    expect(Object.values(view.championStatus)).toEqual([false, false, false, false, false, false]);
  });
});
