import type { ShardLease } from './deadline.schema';
import { planShards, SHARD_COUNT, shardOf } from './shards';

const NOW = 1_000_000;
const leases = (owners: (string | null)[], until = NOW + 5000): ShardLease[] =>
  owners.map((owner, i) => ({ _id: i, owner, leaseUntil: new Date(owner ? until : 0) }));

describe('shardOf', () => {
  it('puts a room in the same shard everywhere, and spreads rooms over all shards', () => {
    expect(shardOf('65a1f0c2e4b0a1b2c3d4e5f6')).toBe(shardOf('65a1f0c2e4b0a1b2c3d4e5f6'));
    const counts = new Array<number>(SHARD_COUNT).fill(0);
    for (let i = 0; i < 1600; i++) {
      const shard = shardOf(`room-${i}`);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });
});

describe('planShards', () => {
  it('lets a lone replica take every free shard', () => {
    expect(
      planShards({ owner: 'a', leases: leases(new Array(4).fill(null)), liveReplicas: ['a'], nowMs: NOW }),
    ).toEqual({
      renew: [],
      claim: [0, 1, 2, 3],
      release: [],
    });
  });

  it('renews what it holds and gives half away when a second replica appears', () => {
    const held = leases(['a', 'a', 'a', 'a']);
    expect(planShards({ owner: 'a', leases: held, liveReplicas: ['a'], nowMs: NOW })).toEqual({
      renew: [0, 1, 2, 3],
      claim: [],
      release: [],
    });
    expect(planShards({ owner: 'a', leases: held, liveReplicas: ['a', 'b'], nowMs: NOW })).toEqual({
      renew: [0, 1],
      claim: [],
      release: [2, 3],
    });
    // b takes the freed half, and nothing held by a live replica.
    expect(
      planShards({
        owner: 'b',
        leases: leases(['a', 'a', null, null]),
        liveReplicas: ['a', 'b'],
        nowMs: NOW,
      }),
    ).toEqual({
      renew: [],
      claim: [2, 3],
      release: [],
    });
  });

  it('takes over expired leases of a replica that died', () => {
    const expired = [...leases(['dead', 'dead'], NOW - 1), ...leases([null, null, 'b', 'b']).slice(2)];
    expect(planShards({ owner: 'b', leases: expired, liveReplicas: ['b'], nowMs: NOW })).toEqual({
      renew: [2, 3],
      claim: [0, 1],
      release: [],
    });
  });

  it('does not count an expired lease of its own as held', () => {
    expect(
      planShards({ owner: 'a', leases: leases(['a', 'a'], NOW - 1), liveReplicas: ['a'], nowMs: NOW }),
    ).toEqual({
      renew: [],
      claim: [0, 1],
      release: [],
    });
  });
});
