import { Broadcasts } from '@oasis198/contracts';
import type { JetStreamService } from '@oasis198/service-kit';
import { ArenaPushService } from './arena-push.service';

describe('ArenaPushService', () => {
  let hear: (data: unknown) => void = () => undefined;
  const jetstream = {
    subscribe: (subject: string, handler: (data: unknown) => void) => {
      expect(subject).toBe(Broadcasts.arenaChanged);
      hear = handler;
    },
  } as unknown as JetStreamService;

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("tells each event's watchers only of their event, at most once a second", () => {
    const push = new ArenaPushService(jetstream);
    push.onModuleInit();
    const nine: number[] = [];
    const two: number[] = [];
    const stop = push.watch('event-9', () => nine.push(Date.now()));
    push.watch('event-2', () => two.push(Date.now()));
    hear({ eventId: 'event-9' });
    hear({ eventId: 'event-9' });
    hear({ eventId: 'event-9' });
    hear({ nothing: true });
    expect([nine.length, two.length]).toEqual([1, 0]);
    jest.advanceTimersByTime(1000);
    expect(nine).toHaveLength(2);
    stop();
    expect(push.watching('event-9')).toBe(0);
    push.onModuleDestroy();
  });
});
