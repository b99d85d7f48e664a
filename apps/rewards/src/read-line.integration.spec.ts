import { Requests, type RewardPage } from '@oasis198/contracts';
import { Metrics } from '@oasis198/service-kit';
import { freshReward, Reward } from './rewards/reward.schema';
import { useRewardsStack } from './testing/rewards-stack';

/**
 * The public reads (leaderboard pages, records, histories) under a storm of requests, as anyone
 * could send them: those whose callers gave up are not read, so the next player is answered.
 * One read at a time per replica here (PUBLIC_READS_AT_ONCE), and 1,000 pages asked for at once,
 * whose callers wait 1 s.
 */
describe('rewards under a storm of leaderboard reads', () => {
  const stack = useRewardsStack('rewards-reads', { PUBLIC_READS_AT_ONCE: '1' });

  it('does not read for callers that gave up: the page asked for after the storm is answered', async () => {
    const players = Array.from({ length: 300 }, (_, i) => ({
      ...freshReward(`storm-player-${i}`, `Storm${i}`, Date.now()),
      assets: { points: (i * 37) % 500, coins: 0 },
    }));
    await stack().model<Reward>(Reward.name).insertMany(players);
    const page = (n: number, timeoutMs: number) =>
      stack().rpc.request<RewardPage>(Requests.rewards.list, { page: n, pageSize: 8 }, timeoutMs);

    const storm = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => page(1 + (i % 37), 1000)));
    const unanswered = storm.filter((r) => r.status === 'rejected' && /not available/.test(String(r.reason)));
    expect(unanswered.length).toBeGreaterThan(0);

    // Before, every read of the storm went to the database at once and ran to its end: this page
    // waited behind the rest of them, and its caller gave up too (503).
    const after = await page(2, 2500);
    expect(after.rewards).toHaveLength(8);

    let dropped = 0;
    for (const replica of stack().replicas) {
      const { values } = await replica.get(Metrics).rpcExpired.get();
      dropped += values.find((v) => v.labels.subject === Requests.rewards.list)?.value ?? 0;
    }
    expect(dropped).toBeGreaterThan(0);
  }, 60_000);
});
