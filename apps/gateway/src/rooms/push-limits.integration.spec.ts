import {
  QueueGroups,
  Requests,
  type RoomMovesPushData,
  roomMovesPushDataSchema,
  type RoomView,
} from '@oasis198/contracts';
import { SseClient, waitFor } from '@oasis198/testing';
import { connect, type Msg, StringCodec } from 'nats';
import { useGameStack } from '../testing/game-stack';
import { LeaderboardPushService } from '../rewards/leaderboard-push.service';
import { expectExactly } from '../testing/exactly';
import { RoomPushService } from './room-push.service';

const STREAMS_PER_ADDRESS = 3;
const SUMMARY_FIELDS = [
  '_id',
  'name',
  'roomNumber',
  'gameType',
  'createdBy',
  'duration',
  'hasPassCode',
  'players',
  'gameStarted',
  'gameOver',
  'version',
  'createdAt',
];

/** Live push streams: the per-address cap, clean-up of abandoned streams, and what the list stream sends. */
describe('live push streams', () => {
  const stack = useGameStack({
    TRUST_PROXY: 'loopback',
    PUSH_STREAMS_PER_ADDRESS: String(STREAMS_PER_ADDRESS),
  });
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const listUrl = () => `${stack().baseUrl}/api/rooms/stream`;
  const roomUrl = (roomId: string) => `${stack().baseUrl}/api/rooms/${roomId}/stream`;

  /** The oasis_push_streams gauge of the gateway, as Prometheus reads it. */
  async function openStreams(): Promise<number> {
    const text = await (await fetch(`${stack().baseUrl}/metrics`)).text();
    return Number(/^oasis_push_streams(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]);
  }

  it('holds at most PUSH_STREAMS_PER_ADDRESS streams per client address; more answer 429 with Retry-After', async () => {
    const s = stack();
    const alice = await s.register('a');
    const room = (await s.createRoom(alice)).body;
    const mine = [
      await SseClient.open(listUrl(), from('10.1.0.1')),
      await SseClient.open(roomUrl(room._id), from('10.1.0.1')),
      await SseClient.open(listUrl(), from('10.1.0.1')),
    ];
    expect(mine.map((c) => c.status)).toEqual([200, 200, 200]);

    for (const url of [listUrl(), roomUrl(room._id)]) {
      const refused = await SseClient.open(url, from('10.1.0.1'));
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body || '{}')).toMatchObject({ code: 'RATE_LIMITED' });
      const seconds = Number(refused.headers?.get('retry-after'));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(10);
    }
    // Another address is not affected.
    const other = await SseClient.open(listUrl(), from('10.1.0.2'));
    expect(other.status).toBe(200);

    // A closed stream frees its place.
    mine[0]?.close();
    const again = await waitFor(
      async () => {
        const client = await SseClient.open(listUrl(), from('10.1.0.1'));
        if (client.status === 200) return client;
        return undefined;
      },
      { what: 'a free stream place', intervalMs: 50 },
    );
    for (const client of [...mine, other, again]) client.close();
    await waitFor(async () => (await openStreams()) === 0, { what: 'every stream to close' });
  });

  it("counts the leaderboard's stream in the same places", async () => {
    const address = from('10.3.0.1');
    const boardUrl = `${stack().baseUrl}/api/rewards/stream`;
    const held = [
      await SseClient.open(boardUrl, address),
      await SseClient.open(listUrl(), address),
      await SseClient.open(boardUrl, address),
    ];
    expect(held.map((c) => c.status)).toEqual([200, 200, 200]);
    const board = stack().accounts.gateway?.get(LeaderboardPushService);
    expect(board?.watching()).toBe(2);
    for (const url of [boardUrl, listUrl()]) expect((await SseClient.open(url, address)).status).toBe(429);
    held[0]?.close();
    const freed = await waitFor(
      async () => {
        const client = await SseClient.open(listUrl(), address);
        return client.status === 200 ? client : undefined;
      },
      { what: 'the place the leaderboard stream freed', intervalMs: 50 },
    );
    for (const client of [...held, freed]) client.close();
    await waitFor(async () => (await openStreams()) === 0, { what: 'every stream to close' });
    // A leaderboard stream that goes stops listening: none is left behind.
    expect(board?.watching()).toBe(0);
  });

  it('cleans up a room stream whose client leaves while the gateway still awaits the room', async () => {
    const s = stack();
    // Its last push held moves only, so the gateway reads the room for a new stream.
    const { alice, bob, room: started } = await s.startedGame();
    expect((await s.move(alice, started._id, 5)).status).toBe(200);
    expect((await s.move(bob, started._id, 6)).status).toBe(200);
    const room = (await s.getRoom(started._id)).body;
    const push = s.accounts.gateway?.get(RoomPushService);
    if (!push) throw new Error('no gateway');

    // The rooms service is slow: a stand-in in its queue group holds rooms.get until told to answer.
    await s.stopRooms();
    const nc = await connect({ servers: s.infra.natsUrl });
    const held: Msg[] = [];
    nc.subscribe(Requests.rooms.get, { queue: QueueGroups.rooms, callback: (_e, msg) => held.push(msg) });
    await nc.flush();
    const codec = StringCodec();
    try {
      const abort = new AbortController();
      const request = fetch(roomUrl(room._id), { signal: abort.signal, headers: from('10.1.0.9') }).catch(
        () => undefined,
      );
      await waitFor(async () => held.length === 1, { what: 'the gateway to ask for the room' });
      abort.abort();
      await request;
      await new Promise((resolve) => setTimeout(resolve, 200));

      // Now the room arrives (a NestJS reply: the request's id and the response).
      const msg = held[0] as Msg;
      const { id } = JSON.parse(codec.decode(msg.data)) as { id: string };
      msg.respond(codec.encode(JSON.stringify({ id, response: room, isDisposed: true })));
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect(await openStreams()).toBe(0);
      expect(push.watching(room._id)).toBe(0);
    } finally {
      await nc.close();
      await s.startRooms();
    }
    // Its place is free again: the address can open all of its streams.
    const clients = await Promise.all(
      Array.from({ length: STREAMS_PER_ADDRESS }, () => SseClient.open(listUrl(), from('10.1.0.9'))),
    );
    expect(clients.map((c) => c.status)).toEqual(clients.map(() => 200));
    for (const client of clients) client.close();
  });

  it('starts the stream of a room pushed moments ago from its push, without asking rooms', async () => {
    const s = stack();
    const alice = await s.register('a');
    const created = (await s.createRoom(alice)).body;
    // Rooms answers no read now: a stand-in in its queue group only counts them.
    await s.stopRooms();
    const nc = await connect({ servers: s.infra.natsUrl });
    let asked = 0;
    nc.subscribe(Requests.rooms.get, { queue: QueueGroups.rooms, callback: () => asked++ });
    await nc.flush();
    try {
      const watcher = await SseClient.open(roomUrl(created._id), from('10.1.0.10'));
      await watcher.until((w) => w.of('room').length === 1, 'the room from its push');
      const first = watcher.rooms()[0];
      expect(first).toEqual({ ...created, serverNow: expect.any(Number) });
      expect(first?.serverNow).toBeGreaterThanOrEqual(created.serverNow);
      expect(asked).toBe(0);
      watcher.close();
    } finally {
      await nc.close();
      await s.startRooms();
    }
  });

  it('sends room summaries on the list stream, and on the room stream the room, then each move without the moves before it', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const lister = await SseClient.open(listUrl(), from('10.1.0.20'));
    const watcher = await SseClient.open(roomUrl(room._id), from('10.1.0.21'));
    await watcher.until((w) => w.of('room').length === 1, 'the current room');
    expect((await s.move(alice, room._id, 5)).status).toBe(200);

    await lister.until(
      (l) => l.of<RoomView>('room').some((r) => r._id === room._id && r.version === room.version + 1),
      'the move on the list stream',
    );
    const summary = lister.of<Record<string, unknown>>('room').find((r) => r['_id'] === room._id);
    expect(Object.keys(summary ?? {}).sort()).toEqual([...SUMMARY_FIELDS].sort());
    expect(summary).toMatchObject({
      _id: room._id,
      name: room.name,
      players: room.players,
      gameStarted: true,
      gameOver: false,
      hasPassCode: false,
      version: room.version + 1,
    });

    await watcher.until(
      (w) => w.rooms().some((r) => r.version === room.version + 1),
      'the move on the room stream',
    );
    expect(watcher.rooms().at(-1)?.whosTurn.moves).toHaveLength(1);
    // The second move comes with itself only, and the stream's rooms are the rooms as they are.
    expect((await s.move(bob, room._id, 6)).status).toBe(200);
    await watcher.until((w) => w.rooms().some((r) => r.version === room.version + 2), 'the second move');
    const [, second] = watcher.of<RoomMovesPushData>('room-moves');
    expect(second).toMatchObject({ version: room.version + 2, movesFrom: 1 });
    expect(second?.whosTurn.moves).toHaveLength(1);
    expectExactly(roomMovesPushDataSchema, second);
    expect(watcher.rooms().at(-1)).toEqual({
      ...(await s.getRoom(room._id)).body,
      serverNow: expect.any(Number),
    });
    lister.close();
    watcher.close();
  });
  it('ends its live streams when a gateway replica shuts down, instead of waiting for the clients', async () => {
    const { accounts } = stack();
    const replica = await accounts.startGatewayReplica();
    accounts.gateways.splice(accounts.gateways.indexOf(replica.app), 1); // closed here, not by the stack
    const watcher = await SseClient.open(`${replica.baseUrl}/api/rooms/stream`, from('10.0.0.77'));
    expect(watcher.status).toBe(200);
    const closing = replica.app.close().then(() => 'closed');
    const outcome = await Promise.race([
      closing,
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
    ]);
    watcher.close();
    await closing;
    expect(outcome).toBe('closed');
    expect(await watcher.ended(1000)).toBe(true);
  });
});
