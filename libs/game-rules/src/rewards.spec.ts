import {
  BLITZ_DURATION,
  CHAMPION_TITLES,
  LEVEL_STATUSES,
  levelFor,
  levelStatusFor,
  levelStatusName,
  LOSS_REWARD,
  NO_REWARD,
  premiumCategoryOf,
  PREMIUM_CATEGORIES,
  rewardFor,
  WIN_REWARD,
} from './rewards';

describe('rewardFor', () => {
  it('gives the winner 25 points and 10 coins, whatever the end reason', () => {
    for (const reason of ['reached198', 'timeout', 'left'] as const) {
      expect(rewardFor('win', reason)).toEqual({ points: 25, coins: 10 });
    }
  });

  it('gives a loser 5 points and 1 coin when the opponent reached 198', () => {
    expect(rewardFor('loss', 'reached198')).toEqual({ points: 5, coins: 1 });
  });

  it('gives a loser by timeout or by leaving nothing', () => {
    expect(rewardFor('loss', 'timeout')).toEqual({ points: 0, coins: 0 });
    expect(rewardFor('loss', 'left')).toEqual({ points: 0, coins: 0 });
  });

  it('gives each player of a draw (move limit) nothing', () => {
    expect(rewardFor('draw', 'moveLimit')).toEqual({ points: 0, coins: 0 });
  });

  it('returns a fresh object the caller may change', () => {
    const reward = rewardFor('win', 'reached198');
    reward.points += 100;
    expect(rewardFor('win', 'reached198')).toEqual({ points: 25, coins: 10 });
    expect(WIN_REWARD).toEqual({ points: 25, coins: 10 });
    expect(LOSS_REWARD).toEqual({ points: 5, coins: 1 });
    expect(NO_REWARD).toEqual({ points: 0, coins: 0 });
  });
});

describe('levels', () => {
  it('level = 1 + floor(points / 100)', () => {
    expect(levelFor(0)).toBe(1);
    expect(levelFor(99)).toBe(1);
    expect(levelFor(100)).toBe(2);
    expect(levelFor(399)).toBe(4);
    expect(levelFor(400)).toBe(5);
    expect(levelFor(4_999)).toBe(50);
    expect(levelFor(12_345)).toBe(124);
    expect(levelFor(-50)).toBe(1);
  });

  it.each([
    [1, 'rookie'],
    [4, 'rookie'],
    [5, 'challenger'],
    [9, 'challenger'],
    [10, 'expert'],
    [19, 'expert'],
    [20, 'master'],
    [49, 'master'],
    [50, 'legend'],
    [500, 'legend'],
  ] as const)('level %i is %s', (level, name) => {
    expect(levelStatusName(level)).toBe(name);
  });

  it('levelStatus has exactly one true flag plus the level', () => {
    expect(LEVEL_STATUSES).toEqual(['rookie', 'challenger', 'expert', 'master', 'legend']);
    for (const points of [0, 399, 400, 900, 1_000, 1_900, 2_000, 4_899, 4_900, 100_000]) {
      const status = levelStatusFor(points);
      const level = levelFor(points);
      expect(status.level).toBe(level);
      const trueFlags = LEVEL_STATUSES.filter((name) => status[name]);
      expect(trueFlags).toEqual([levelStatusName(level)]);
      expect(Object.keys(status).sort()).toEqual([...LEVEL_STATUSES, 'level'].sort());
    }
    expect(levelStatusFor(400)).toMatchObject({ challenger: true, rookie: false, level: 5 });
    expect(levelStatusFor(4_900)).toMatchObject({ legend: true, master: false, level: 50 });
  });
});

describe('premium categories and titles', () => {
  it('shows the one true category, else none', () => {
    expect(PREMIUM_CATEGORIES).toEqual(['bronze', 'silver', 'gold', 'platinum']);
    expect(premiumCategoryOf({})).toBe('none');
    expect(premiumCategoryOf({ bronze: false, silver: false, gold: false, platinum: false })).toBe('none');
    expect(premiumCategoryOf({ gold: true })).toBe('gold');
    expect(premiumCategoryOf({ bronze: false, platinum: true })).toBe('platinum');
  });

  it('lists SPEC champion titles and the blitz duration', () => {
    expect(CHAMPION_TITLES).toEqual([
      'blitzWinner',
      'eventsWinner',
      'cityWinner',
      'countryWinner',
      'continentWinner',
      'worldWinner',
    ]);
    expect(BLITZ_DURATION).toBe(14);
  });
});
