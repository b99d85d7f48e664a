import { roomPushHeaders, RoomPushSubjects, type RoomView, toRoomMoves } from '@oasis198/contracts';
import { SseClient, type SseEvent, waitFor } from '@oasis198/testing';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import net from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { useGameStack } from '../testing/game-stack';

const ADDRESSES = 15;
const STREAMS_PER_ADDRESS = 20;
const STALLED = ADDRESSES * STREAMS_PER_ADDRESS;
const MAX_GROWTH = 64 * 1024 * 1024;
/** Other rooms of a busy replica, whose changes every list stream gets. */
const BUSY_ROOMS = 40;
const BATCH = 250;
/** Enough for every stalled stream to fill its kernel buffers (loopback: about 4 MB) several times over. */
const MAX_PUSHES = 40_000;
const FIRST_BUSY_VERSION = 1_000_000;
/** Busy changes before the memory is measured: fewer than a stalled socket's kernel buffers take. */
const WARM_UP = 2_000;
/** Moves of the game played meanwhile (plain 1s: the game runs until 198). */
const MAX_MOVES = 150;

// The gateway runs in this process: a full collection before each reading of its memory leaves
// out the garbage of the load, so what is left is what it holds.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** A client that asks for a stream from `localAddress` and, once the headers came, never reads again. */
function stalledStream(port: number, localAddress: string): Promise<{ socket: net.Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    socket.once('error', reject);
    socket.once('connect', () =>
      socket.write('GET /api/rooms/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n'),
    );
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.removeListener('error', reject);
      socket.on('error', () => undefined); // the gateway cuts it: a reset is expected
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1]) });
    });
  });
}

/**
 * A room-list reader that keeps up and keeps little: the versions of one room's summaries, and the
 * last version of the other rooms' (their frames are dropped).
 */
async function listReader(url: string, roomId: string) {
  const seen = { lastOther: 0, versions: [] as number[] };
  const onEvent = ({ id, data }: SseEvent) => {
    if (!id) return;
    const room = JSON.parse(data) as Pick<RoomView, '_id' | 'version'>;
    if (room._id === roomId) seen.versions.push(room.version);
    else seen.lastOther = Math.max(seen.lastOther, Number(id));
  };
  const client = await SseClient.open(url, {}, { keep: false, onEvent });
  if (client.status !== 200) throw new Error(`list stream: ${client.status}`);
  return Object.assign(seen, { close: () => client.close() });
}

/**
 * Stalled push streams: never-reading clients from many addresses while rooms are busy. What the
 * replica holds for them stays bounded, they are closed, and readers that keep up see every move.
 */
describe('stalled push streams', () => {
  const stack = useGameStack({
    TRUST_PROXY: 'loopback',
    PUSH_STREAMS_PER_ADDRESS: String(STREAMS_PER_ADDRESS),
    PUSH_STALL_TIMEOUT_S: '2',
  });

  async function residentMemory(): Promise<number> {
    collectGarbage();
    return metric('process_resident_memory_bytes');
  }

  async function metric(name: string): Promise<number> {
    const text = await (await fetch(`${stack().baseUrl}/metrics`)).text();
    return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
  }

  it('keeps the replica within its memory budget, closes the stalled streams, and readers see every move', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const lister = await listReader(`${s.baseUrl}/api/rooms/stream`, room._id);
    const watcher = await SseClient.open(`${s.baseUrl}/api/rooms/${room._id}/stream`);
    await watcher.until((w) => w.of('room').length === 1, 'the current room');
    const readers = 2;

    const port = Number(new URL(s.baseUrl).port);
    const stalled = await Promise.all(
      Array.from({ length: STALLED }, (_, i) =>
        stalledStream(port, `127.0.0.${2 + Math.floor(i / STREAMS_PER_ADDRESS)}`),
      ),
    );
    expect(stalled.filter((c) => c.status === 200)).toHaveLength(STALLED);
    expect(await metric('oasis_push_streams')).toBe(STALLED + readers);

    // The busy rooms' changes, as rooms publishes them (a room at a new version, all its moves).
    const nc: NatsConnection = await connect({ servers: s.infra.natsUrl });
    const template = (await s.getRoom(room._id)).body;
    let published = 0;
    const publish = (version: number) => {
      const busy: RoomView = { ...template, _id: `busy${version % BUSY_ROOMS}`, version };
      const meta = { type: 'room' as const, version, gameNumber: 1, movesFrom: 0, moves: 0 };
      const h = natsHeaders();
      for (const [name, value] of Object.entries(roomPushHeaders(meta))) h.set(name, value);
      nc.publish(RoomPushSubjects.room(busy._id), JSON.stringify(toRoomMoves(busy, 0)), { headers: h });
      published++;
    };

    // Meanwhile alice and bob play, move by move.
    let moves = 0;
    let playing = true;
    const game = (async () => {
      while (playing && moves < MAX_MOVES) {
        const mover = moves % 2 === 0 ? alice : bob;
        const res = await s.move(mover, room._id, 1);
        if (res.status !== 200)
          throw new Error(`move ${moves + 1}: ${res.status} ${JSON.stringify(res.body)}`);
        moves++;
      }
    })();

    /** Publishes a batch of busy changes and waits until the reader that keeps up has them all. */
    const batch = async () => {
      for (let i = 0; i < BATCH; i++) publish(FIRST_BUSY_VERSION + published);
      await nc.flush();
      const last = FIRST_BUSY_VERSION + published - 1;
      await waitFor(async () => lister.lastOther >= last, {
        what: `the list reader to get busy change ${last}`,
        timeoutMs: 30_000,
        intervalMs: 10,
      });
    };

    const samples: string[] = [];
    let before = 0;
    let peak = 0;
    let open = STALLED + readers;
    try {
      // A warm-up the kernel's socket buffers take whole: the replica's memory under this load.
      while (published < WARM_UP) await batch();
      before = await residentMemory();
      peak = before;
      while (published < MAX_PUSHES && open > readers) {
        await batch();
        const rss = await residentMemory();
        const owed = await metric('oasis_push_buffered_bytes');
        samples.push(
          `${Math.round((rss - before) / 2 ** 20)}${Number.isNaN(owed) ? '' : `/${Math.round(owed / 2 ** 20)}`}`,
        );
        peak = Math.max(peak, rss);
        open = await metric('oasis_push_streams');
        if (peak - before >= MAX_GROWTH) break;
      }
    } finally {
      playing = false;
      await game;
      await nc.close();
    }
    const figures = `${published} busy pushes, ${moves} moves; resident memory ${Math.round(before / 2 ** 20)} MiB after the warm-up, then ${samples.join(' ')} MiB more (/ owed by the streams); ${open} streams open`;
    // A failure shows the figures.
    expect(peak - before < MAX_GROWTH ? 'grew by less than 64 MiB' : figures).toBe(
      'grew by less than 64 MiB',
    );
    // Every stalled stream is closed, and its address has its places back.
    await waitFor(async () => (await metric('oasis_push_streams')) === readers, {
      what: 'the stalled streams to close',
      timeoutMs: 15_000,
    });
    const again = await Promise.all(
      Array.from({ length: ADDRESSES }, (_, i) => stalledStream(port, `127.0.0.${2 + i}`)),
    );
    expect(again.map((c) => c.status)).toEqual(again.map(() => 200));
    for (const { socket } of [...stalled, ...again]) socket.destroy();

    // The readers saw every move: the watcher each state in turn, the list each version.
    const final = (await s.getRoom(room._id)).body;
    expect(final.whosTurn.moves).toHaveLength(moves);
    await watcher.until(
      (w) => w.rooms().at(-1)?.version === final.version,
      'the last move on the room stream',
    );
    expect(watcher.rooms().map((r) => r.whosTurn.moves.length)).toEqual(
      Array.from({ length: moves + 1 }, (_, i) => i),
    );
    await waitFor(async () => lister.versions.at(-1) === final.version, {
      what: 'the last move on the list',
    });
    expect(lister.versions).toEqual(Array.from({ length: moves }, (_, i) => room.version + 1 + i));
    watcher.close();
    lister.close();
  }, 300_000);
});
