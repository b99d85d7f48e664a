import { Consumers } from '@oasis198/contracts';
import { consumerSettings } from './stream-setup';

describe('consumerSettings: a durable consumer as its spec declares it', () => {
  it('waits 30 s for an ack and holds 1,000 unacked by default, leaving max_deliver to the server', () => {
    expect(consumerSettings(Consumers.rewardsGames)).toEqual({ ack_wait: 30e9, max_ack_pending: 1000 });
  });

  it("takes the spec's ack wait, unacked cap and deliveries", () => {
    expect(consumerSettings(Consumers.tournamentsGames).ack_wait).toBe(10e9);
    expect(consumerSettings(Consumers.roomsProjector)).toEqual({ ack_wait: 30e9, max_ack_pending: 20_000 });
    // The timer's ack wait comes from its RPC timeout (3 x 4.1 s here), in seconds.
    expect(consumerSettings({ ...Consumers.timerFired, ackWaitS: 12_300 / 1000 })).toEqual({
      ack_wait: 12_300_000_000,
      max_ack_pending: 20_000,
      max_deliver: -1,
    });
  });
});
