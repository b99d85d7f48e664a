import { type ArenaPush, Broadcasts, type EventArenaResponse, Requests } from '@oasis198/contracts';
import type { JetStreamService, RpcClient } from '@oasis198/service-kit';
import { ArenaPushService } from './arena-push.service';

const view = (eventId: string, n: number): EventArenaResponse => ({
  eventId,
  name: eventId,
  arena: null,
  previous: null,
  joined: false,
  roomId: null,
  // A marker of which read a frame carries.
  ...{ n },
});

describe('ArenaPushService', () => {
  let hear: (data: unknown) => void = () => undefined;
  const jetstream = {
    subscribe: (subject: string, handler: (data: unknown) => void) => {
      expect(subject).toBe(Broadcasts.arenaChanged);
      hear = handler;
    },
  } as unknown as JetStreamService;
  let reads: string[];
  let failing: boolean;
  /** How long each read takes, in order (fake time); missing ones answer at once. */
  let delays: number[];
  const rpc = {
    request: async (subject: string, body: { eventId: string; caller?: unknown }) => {
      expect(subject).toBe(Requests.tournaments.event);
      expect(body.caller).toBeUndefined();
      reads.push(body.eventId);
      const n = reads.length;
      const delay = delays[n - 1];
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (failing) throw new Error('tournaments away');
      return view(body.eventId, n);
    },
  } as unknown as RpcClient;

  /** The pushes a watcher got, parsed from its SSE frames. */
  const watcher = (push: ArenaPushService, eventId: string, player?: string) => {
    const got: (ArenaPush & { event?: { n?: number } })[] = [];
    const stop = push.watch(eventId, player, (frame) => {
      expect(frame).toMatch(/^event: arena\ndata: .*\n\n$/);
      got.push(JSON.parse(frame.split('\n')[1]?.slice('data: '.length) ?? 'null'));
    });
    return { got, stop };
  };

  beforeEach(() => {
    jest.useFakeTimers();
    reads = [];
    failing = false;
    delays = [];
  });
  afterEach(() => jest.useRealTimers());

  it("tells each event's watchers only of their event, at most once a second, with one read for all", async () => {
    const push = new ArenaPushService(jetstream, rpc);
    push.onModuleInit();
    const nine = [watcher(push, 'event-9'), watcher(push, 'event-9', 'alice')];
    const two = watcher(push, 'event-2');
    hear({ eventId: 'event-9' });
    hear({ eventId: 'event-9' });
    hear({ eventId: 'event-9' });
    hear({ nothing: true });
    await jest.advanceTimersByTimeAsync(0);
    expect(nine.map((w) => w.got)).toEqual([
      [{ event: view('event-9', 1) }],
      [{ event: view('event-9', 1) }],
    ]);
    expect(two.got).toEqual([]);
    expect(reads).toEqual(['event-9']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(nine[0]?.got).toHaveLength(2);
    expect(reads).toEqual(['event-9', 'event-9']);
    for (const w of nine) w.stop();
    expect(push.watching('event-9')).toBe(0);
    push.onModuleDestroy();
  });

  it('tells the pages of the players whose entry changed at once, and folds the standings', async () => {
    const push = new ArenaPushService(jetstream, rpc);
    push.onModuleInit();
    const [alice, bob, carol, visitor] = [
      watcher(push, 'event-9', 'alice'),
      watcher(push, 'event-9', 'bob'),
      watcher(push, 'event-9', 'carol'),
      watcher(push, 'event-9'),
    ];
    hear({ eventId: 'event-9', players: ['alice'] });
    await jest.advanceTimersByTimeAsync(0);
    hear({ eventId: 'event-9', players: ['bob'] });
    hear({ eventId: 'event-9', players: ['carol', 42] });
    // Within the interval: bob and carol hear of their new rooms now, with no read.
    await jest.advanceTimersByTimeAsync(0);
    expect([bob.got, carol.got].map((got) => got.slice(1))).toEqual([[{ mine: true }], [{ mine: true }]]);
    expect(reads).toHaveLength(1);
    // At its end, the standings once for everyone.
    await jest.advanceTimersByTimeAsync(1000);
    const mine = (w: typeof alice) => w.got.map((p) => p.mine === true);
    expect([mine(alice), mine(bob), mine(carol), mine(visitor)]).toEqual([
      [true, false, false],
      [false, true, false],
      [false, true, false],
      [false, false],
    ]);
    expect(reads).toHaveLength(2);
    push.onModuleDestroy();
  });

  it('sends the frames of an event in order, a slow read holding the next one back', async () => {
    const push = new ArenaPushService(jetstream, rpc);
    push.onModuleInit();
    const page = watcher(push, 'event-9');
    delays = [3000];
    hear({ eventId: 'event-9' });
    await jest.advanceTimersByTimeAsync(500);
    hear({ eventId: 'event-9' });
    await jest.advanceTimersByTimeAsync(5000);
    expect(page.got.map((p) => p.event?.n)).toEqual([1, 2]);
    push.onModuleDestroy();
  });

  it('reads nothing for an event nobody watches here, and says only "refetch" when the read fails', async () => {
    const push = new ArenaPushService(jetstream, rpc);
    push.onModuleInit();
    hear({ eventId: 'event-6' });
    await jest.advanceTimersByTimeAsync(1000);
    expect(reads).toEqual([]);
    const page = watcher(push, 'event-6', 'alice');
    failing = true;
    hear({ eventId: 'event-6', players: ['alice'] });
    await jest.advanceTimersByTimeAsync(0);
    expect(page.got).toEqual([{ mine: true }, {}]);
    push.onModuleDestroy();
  });

  it('tells a seated player their new room, before a slow read of the standings ends', async () => {
    const push = new ArenaPushService(jetstream, rpc);
    push.onModuleInit();
    const [alice, bob, visitor] = [
      watcher(push, 'event-9', 'alice'),
      watcher(push, 'event-9', 'bob'),
      watcher(push, 'event-9'),
    ];
    delays = [3000];
    // Bob's seat is malformed (a broadcast is trusted no further than its shape): his page asks.
    hear({ eventId: 'event-9', players: ['alice', 'bob'], seated: true, seats: { alice: 'room-a', bob: 7 } });
    await jest.advanceTimersByTimeAsync(0);
    expect([alice.got, bob.got, visitor.got]).toEqual([
      [{ mine: true, roomId: 'room-a' }],
      [{ mine: true }],
      [],
    ]);
    await jest.advanceTimersByTimeAsync(3000);
    expect([alice.got, visitor.got]).toEqual([
      [{ mine: true, roomId: 'room-a' }, { event: view('event-9', 1) }],
      [{ event: view('event-9', 1) }],
    ]);
    push.onModuleDestroy();
  });
});
