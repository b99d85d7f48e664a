import { forLivePlayers } from './live-players';
import { InMemoryRewardsRepository } from './rewards.repository.fake';

describe('forLivePlayers', () => {
  const players = [{ playerId: 'alice' }, { playerId: 'bob' }, { playerId: 'carol' }];

  it('writes for the players not deleted, and undoes a write whose player was deleted meanwhile', async () => {
    const rewards = new InMemoryRewardsRepository();
    await rewards.markDeleted('alice');
    const written: string[] = [];
    const undone: string[] = [];
    await forLivePlayers(
      rewards,
      players,
      async (live) => {
        written.push(...live.map((item) => item.playerId));
        // Another replica handles bob's deletion while the write is under way.
        await rewards.markDeleted('bob');
        return written;
      },
      async (playerId) => undone.push(playerId),
    );
    expect(written).toEqual(['bob', 'carol']);
    expect(undone).toEqual(['bob']);
  });

  it('undoes nothing that was not written', async () => {
    const rewards = new InMemoryRewardsRepository();
    const undone: string[] = [];
    await forLivePlayers(
      rewards,
      players,
      async (live) => {
        for (const { playerId } of live) await rewards.markDeleted(playerId);
        return ['alice', 'bob'];
      },
      async (playerId) => undone.push(playerId),
    );
    expect(undone).toEqual(['alice', 'bob']);
  });
});
