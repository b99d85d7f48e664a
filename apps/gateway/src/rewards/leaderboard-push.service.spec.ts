import { Broadcasts, LEADERBOARD_PUSH_INTERVAL_MS } from '@oasis198/contracts';
import type { JetStreamService } from '@oasis198/service-kit';
import { LEADERBOARD_FRAME, LeaderboardPushService } from './leaderboard-push.service';

/** The service with a broadcast its test fires by hand, and what one listener heard. */
function setup() {
  const subscribed = new Map<string, (data: unknown) => void>();
  const jetstream = {
    subscribe: (subject: string, handler: (data: unknown) => void) => subscribed.set(subject, handler),
  } as unknown as JetStreamService;
  const service = new LeaderboardPushService(jetstream);
  service.onModuleInit();
  const heard: number[] = [];
  const stop = service.watch(() => heard.push(Date.now()));
  const paid = () => subscribed.get(Broadcasts.leaderboardChanged)?.({ gameId: 'g', playerIds: ['p'] });
  return { service, heard, stop, paid };
}

describe('LeaderboardPushService', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('tells its listeners of the first paid game at once', () => {
    const { heard, paid, service } = setup();
    paid();
    expect(heard).toEqual([0]);
    service.onModuleDestroy();
  });

  it('folds the games paid within an interval into one notice at its end, however many', () => {
    const { heard, paid, service } = setup();
    paid();
    for (let i = 0; i < 50; i++) {
      jest.advanceTimersByTime(10);
      paid();
    }
    jest.advanceTimersByTime(LEADERBOARD_PUSH_INTERVAL_MS);
    expect(heard).toEqual([0, LEADERBOARD_PUSH_INTERVAL_MS]);
    // Quiet since: nothing more; a later game is told at once again.
    jest.advanceTimersByTime(5 * LEADERBOARD_PUSH_INTERVAL_MS);
    expect(heard).toHaveLength(2);
    paid();
    expect(heard).toHaveLength(3);
    service.onModuleDestroy();
  });

  it('stops telling a listener that unsubscribed', () => {
    const { heard, paid, stop, service } = setup();
    stop();
    paid();
    expect(heard).toEqual([]);
    service.onModuleDestroy();
  });

  it('sends a frame of the leaderboard event with empty data', () => {
    expect(LEADERBOARD_FRAME).toBe('event: leaderboard\ndata: {}\n\n');
  });
});
