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
      async ({ playerId }) => {
        written.push(playerId);
        // Another replica handles bob's deletion while his write is under way.
        if (playerId === 'bob') await rewards.markDeleted('bob');
        return true;
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
      async ({ playerId }) => {
        await rewards.markDeleted(playerId);
        return playerId !== 'carol';
      },
      async (playerId) => undone.push(playerId),
    );
    expect(undone).toEqual(['alice', 'bob']);
  });
});
