import { COMMON_MESSAGES, REWARD_MESSAGES, type TokenClaims, unknownFieldMessage } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { InMemoryRewardsRepository } from './rewards.repository.fake';
import type { Reward } from './reward.schema';
import type { RewardsRepository } from './rewards.repository';
import { RewardsService } from './rewards.service';

const caller = (userId: string, name = `${userId}name`): TokenClaims => ({ userId, name, jti: 'j', exp: 0 });

function setPoints(repo: InMemoryRewardsRepository, id: string, points: number): void {
  const reward = repo.rewards.get(id);
  if (!reward) throw new Error(`no record ${id}`);
  reward.assets.points = points;
}

function setup() {
  const repo = new InMemoryRewardsRepository();
  return { repo, rewards: new RewardsService(repo as unknown as RewardsRepository) };
}

describe('RewardsService', () => {
  it('gets a record by player id, 404 when there is none', async () => {
    const { repo, rewards } = setup();
    await repo.createIfMissing('u1', 'alice1', 1);
    expect((await rewards.get('u1')).playerName).toBe('alice1');
    await expect(rewards.get('u2')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: REWARD_MESSAGES.notFound,
    });
    await expect(rewards.get({ $gt: '' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  function player(repo: InMemoryRewardsRepository, id: string, name: string, points: number, wins: number) {
    return repo.createIfMissing(id, name, 1).then(() => {
      const reward = repo.rewards.get(id) as Reward;
      reward.assets.points = points;
      reward.wins = wins;
    });
  }

  it('ranks by points, then wins, then name; players equal in all three share a rank', async () => {
    const { repo, rewards } = setup();
    await player(repo, 'a', 'amy1', 50, 1);
    await player(repo, 'b', 'bob1', 50, 2);
    await player(repo, 'c', 'cid1', 50, 1);
    await player(repo, 'd', 'amy1', 50, 1); // the same name, points and wins as 'a'
    await player(repo, 'e', 'eve1', 70, 0);
    await player(repo, 'f', 'fay1', 10, 9);
    const page = await rewards.list(1, 10);
    expect(page.rewards.map((r) => [r.playerId, r.rank])).toEqual([
      ['e', 1],
      ['b', 2],
      ['a', 3],
      ['d', 3],
      ['c', 5],
      ['f', 6],
    ]);
    expect(page.rewards[1]).toMatchObject({ playerName: 'bob1', wins: 2, assets: { points: 50 } });
    // GET answers the same rank as the list shows, for every player.
    for (const reward of page.rewards) expect((await rewards.get(reward.playerId)).rank).toBe(reward.rank);
    // A page that starts inside a tie ranks its first row by counting who is ahead.
    expect((await rewards.list(2, 3)).rewards.map((r) => [r.playerId, r.rank])).toEqual([
      ['d', 3],
      ['c', 5],
      ['f', 6],
    ]);
    expect((await rewards.list(4, 2)).rewards).toEqual([]);
  });

  it('ranks the first page without counting: nobody is ahead of its first row (every refetch asks it)', async () => {
    const { repo, rewards } = setup();
    await player(repo, 'a', 'amy1', 50, 1);
    await player(repo, 'b', 'bob1', 50, 1);
    await player(repo, 'c', 'cid1', 10, 0);
    const counts = jest.spyOn(repo, 'countAhead');
    expect((await rewards.list(1, 2)).rewards.map((r) => r.rank)).toEqual([1, 2]);
    expect(counts).not.toHaveBeenCalled();
    // Any later page counts once, for its first row.
    expect((await rewards.list(2, 2)).rewards.map((r) => r.rank)).toEqual([3]);
    expect(counts).toHaveBeenCalledTimes(1);
  });

  it('orders names by character code, as the database does (digits, then capitals, then small letters)', async () => {
    const { repo, rewards } = setup();
    await player(repo, 'a', 'bob1', 0, 0);
    await player(repo, 'b', 'Zed1', 0, 0);
    await player(repo, 'c', '9lives', 0, 0);
    expect((await rewards.list(1, 10)).rewards.map((r) => r.playerName)).toEqual(['9lives', 'Zed1', 'bob1']);
  });

  it('lists by points, then name, with the page numbers it used', async () => {
    const { repo, rewards } = setup();
    for (const [id, name, points] of [
      ['a', 'zed1', 10],
      ['b', 'amy1', 30],
      ['c', 'bob1', 30],
    ] as const) {
      await repo.createIfMissing(id, name, 1);
      setPoints(repo, id, points);
    }
    const page = await rewards.list(1, 2);
    expect(page.rewards.map((r) => r.playerName)).toEqual(['amy1', 'bob1']);
    expect(page).toMatchObject({ page: 1, pageSize: 2, total: 3 });
    expect((await rewards.list(2, 2)).rewards.map((r) => r.playerName)).toEqual(['zed1']);
  });

  it('answers a page past any offset the database takes with an empty list and the total', async () => {
    const { repo, rewards } = setup();
    await repo.createIfMissing('a', 'amy1', 1);
    const asked: number[] = [];
    const list = repo.list.bind(repo);
    repo.list = (page: number, pageSize: number) => {
      asked.push((page - 1) * pageSize);
      return list(page, pageSize);
    };
    for (const page of [1e300, 2 ** 60, Number.MAX_SAFE_INTEGER]) {
      expect(await rewards.list(page, 100)).toMatchObject({ rewards: [], total: 1 });
    }
    // The skip handed to the database is always a safe integer (MongoDB refuses larger ones).
    expect(asked.every((skip) => Number.isSafeInteger(skip))).toBe(true);
  });

  describe('create', () => {
    it("creates the caller's own record, or returns the existing one unchanged", async () => {
      const { repo, rewards } = setup();
      const created = await rewards.create(caller('u1', 'alice1'), { playerId: 'u1', playerName: 'alice1' });
      expect(created).toMatchObject({ playerId: 'u1', playerName: 'alice1', playedGames: 0 });
      setPoints(repo, 'u1', 50);
      // After a rename the record keeps its name until the rename reaches it (user.renamed).
      const again = await rewards.create(caller('u1', 'other1'), { playerId: 'u1', playerName: 'other1' });
      expect(again).toMatchObject({ playerName: 'alice1', assets: { points: 50, coins: 0 } });
    });

    it("refuses someone else's id (403), a bad name (400) and any earned field (400)", async () => {
      const { rewards } = setup();
      await expect(
        rewards.create(caller('u1'), { playerId: 'u2', playerName: 'alice1' }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: COMMON_MESSAGES.forbiddenOwner,
      });
      await expect(rewards.create(caller('u1'), { playerId: 'u1', playerName: 'a!' })).rejects.toMatchObject({
        code: 'VALIDATION',
        message: MESSAGES.username,
      });
      await expect(
        rewards.create(caller('u1'), { playerId: 'u1', playerName: 'alice1', assets: { points: 1e9 } }),
      ).rejects.toMatchObject({ code: 'VALIDATION', details: { assets: expect.any(String) } });
    });

    it("refuses a name that is not the caller's own (403): no record in another player's name", async () => {
      const { repo, rewards } = setup();
      await expect(
        rewards.create(caller('u1', 'alice1'), { playerId: 'u1', playerName: 'bob1' }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN', message: REWARD_MESSAGES.notYourName });
      expect(repo.rewards.size).toBe(0);
    });

    it('does not recreate the record of a deleted player', async () => {
      const { repo, rewards } = setup();
      await repo.markDeleted('u1');
      await expect(
        rewards.create(caller('u1'), { playerId: 'u1', playerName: 'alice1' }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(repo.rewards.size).toBe(0);
    });
  });

  describe('edit and delete', () => {
    it('renames the owner’s record and nothing else', async () => {
      const { repo, rewards } = setup();
      await repo.createIfMissing('u1', 'alice1', 1);
      const { reward } = await rewards.edit(caller('u1', 'alice2'), 'u1', { playerName: 'alice2' });
      expect(reward.playerName).toBe('alice2');
      for (const body of [
        { playerName: 'alice3', points: 5 },
        { assets: { coins: 5 } },
        { levelStatus: { level: 9 } },
        { championStatus: { worldWinner: true } },
      ]) {
        // The gateway's own words for the field (editRewardBodySchema), over NATS as over HTTP.
        const earned = Object.keys(body).find((key) => key !== 'playerName') as string;
        await expect(rewards.edit(caller('u1'), 'u1', body)).rejects.toMatchObject({
          code: 'VALIDATION',
          message: unknownFieldMessage(earned),
        });
      }
      expect(repo.rewards.get('u1')).toMatchObject({ playerName: 'alice2', assets: { points: 0, coins: 0 } });
    });

    it("refuses to rename the owner's record to any name but their own (403): no impersonation", async () => {
      const { repo, rewards } = setup();
      await repo.createIfMissing('u1', 'alice1', 1);
      await repo.createIfMissing('u2', 'bob1', 1);
      for (const playerName of ['bob1', 'alice2']) {
        await expect(rewards.edit(caller('u1', 'alice1'), 'u1', { playerName })).rejects.toMatchObject({
          code: 'FORBIDDEN',
          message: REWARD_MESSAGES.notYourName,
        });
      }
      expect(repo.rewards.get('u1')).toMatchObject({ playerName: 'alice1' });
    });

    it("refuses someone else's record with 403 before anything else, and a missing one with 404", async () => {
      const { repo, rewards } = setup();
      await repo.createIfMissing('u2', 'bob1', 1);
      await expect(rewards.edit(caller('u1'), 'u2', { points: 1 })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      await expect(rewards.delete(caller('u1'), 'u2')).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(repo.rewards.has('u2')).toBe(true);
      await expect(
        rewards.edit(caller('u1', 'alice1'), 'u1', { playerName: 'alice1' }),
      ).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(rewards.delete(caller('u1'), 'u1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('deletes the owner’s record', async () => {
      const { repo, rewards } = setup();
      await repo.createIfMissing('u1', 'alice1', 1);
      expect(await rewards.delete(caller('u1'), 'u1')).toEqual({ message: REWARD_MESSAGES.deleted });
      expect(repo.rewards.has('u1')).toBe(false);
    });
  });
});
