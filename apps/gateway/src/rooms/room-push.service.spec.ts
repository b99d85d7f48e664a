import {
  PUSH_HEARTBEAT_SECONDS,
  PUSH_MESSAGES,
  type ListPushMessage,
  type RoomPushMeta,
  roomPushHeaders,
  RoomPushSubjects,
  type RoomSummary,
  type RoomView,
  toRoomMoves,
} from '@oasis198/contracts';
import { toSpecSeconds } from '@oasis198/game-rules';
import { createLogger, type JetStreamService, Metrics, RetryLaterError } from '@oasis198/service-kit';
import type { GatewayConfig } from '../config';
import type { Response } from 'express';
import type { Msg } from 'nats';
import { EventEmitter } from 'node:events';
import { frame, type PushStream, RoomChange, RoomFollower, RoomPushService } from './room-push.service';

const room = (id: string, version: number) => ({ _id: id, version, players: [] }) as unknown as RoomView;
const move = (n: number) => ({ player: n % 2 ? 'player1' : 'player2', number: n, option: 'plain', total: n });
/** Room r1 at `version`, in game `gameNumber` with `moves` moves. */
const roomAt = (version: number, gameNumber: number, moves: number) =>
  ({
    ...room('r1', version),
    whosTurn: { gameNumber, moves: Array.from({ length: moves }, (_, i) => move(i + 1)) },
  }) as unknown as RoomView;

/** A push message as rooms publishes it (room-push.ts): headers, and the body that is the frame's data. */
function pushMsg(meta: RoomPushMeta, data: unknown, roomId = 'r1'): Msg {
  const headers = roomPushHeaders(meta);
  return {
    subject: RoomPushSubjects.room(roomId),
    headers: { get: (name: string) => headers[name] ?? '' },
    data: new TextEncoder().encode(JSON.stringify(data)),
  } as unknown as Msg;
}
/** The push of room r1 at `version`, holding its moves from `movesFrom` on. */
const statePush = (view: RoomView, movesFrom: number) =>
  pushMsg(
    {
      type: 'room',
      version: view.version,
      gameNumber: view.whosTurn.gameNumber,
      movesFrom,
      moves: view.whosTurn.moves.length,
    },
    toRoomMoves(view, movesFrom),
  );
const gonePush = (version: number) =>
  pushMsg({ type: 'room-deleted', version }, { roomId: 'r1', version, reason: 'left' });
const change = (msg: Msg) => {
  const parsed = RoomChange.of(msg);
  if (!parsed) throw new Error('not a push');
  return parsed;
};
const text = (bytes: Uint8Array | string | null) =>
  typeof bytes === 'string' || bytes === null ? bytes : new TextDecoder().decode(bytes);

/**
 * The parts of an Express response an event stream uses, recording what was written. While
 * `stalled`, writes stay in "Node's buffer" (writableLength) and their callbacks wait for flush().
 */
class FakeResponse extends EventEmitter {
  destroyed = false;
  statusCode = 0;
  readonly headers: Record<string, string> = {};
  readonly chunks: string[] = [];
  writableLength = 0;
  stalled = false;
  ended = false;
  flushed = false;
  private readonly callbacks: (() => void)[] = [];
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  flushHeaders() {
    this.flushed = true;
  }
  write(chunk: string | Uint8Array, callback?: () => void) {
    this.chunks.push(text(chunk) as string);
    if (!this.stalled) callback?.();
    else {
      this.writableLength += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
      if (callback) this.callbacks.push(callback);
    }
    return true;
  }
  /** The client reads again: what Node held goes through. */
  flush() {
    this.stalled = false;
    this.writableLength = 0;
    for (const callback of this.callbacks.splice(0)) callback();
  }
  end() {
    this.ended = true;
  }
  destroy() {
    this.destroyed = true;
    this.writableLength = 0;
    this.callbacks.length = 0;
  }
}

/** That taking a place is refused with `code` and `message`, and says to come back in 5 s. */
function expectRefused(take: () => unknown, code: string, message: string): void {
  let refused: unknown;
  try {
    take();
  } catch (error) {
    refused = error;
  }
  expect(refused).toBeInstanceOf(RetryLaterError);
  expect(refused).toMatchObject({ code, message, retryAfterS: 5 });
}

function service(
  streamsPerAddress = 20,
  streamsPerReplica = 10_000,
  { perStream = 128 * 1024, perReplica = 64 * 1024 * 1024, stallS = 30 } = {},
) {
  const handlers = new Map<string, (msg: Msg) => void>();
  // The connection's status changes, as nats.js yields them: one is fed by `status`.
  const statuses: Array<{ type: string }> = [];
  let wake = () => undefined as void;
  const jetstream = {
    subscribeMessages: (subject: string, handler: (msg: Msg) => void) => handlers.set(subject, handler),
    nc: {
      async *status() {
        for (;;) {
          const next = statuses.shift();
          if (next) yield next;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
  };
  const status = async (type: string) => {
    statuses.push({ type });
    wake();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const push = new RoomPushService(
    jetstream as unknown as JetStreamService,
    createLogger('push-test', 'silent'),
    {
      PUSH_STREAMS_PER_ADDRESS: streamsPerAddress,
      PUSH_STREAMS_PER_REPLICA: streamsPerReplica,
      PUSH_BUFFER_BYTES_PER_STREAM: perStream,
      PUSH_BUFFER_BYTES_PER_REPLICA: perReplica,
      PUSH_STALL_TIMEOUT_S: stallS,
    } as GatewayConfig,
    new Metrics('push-test'),
  );
  push.onModuleInit();
  const deliver = (msg: Msg) => handlers.get(RoomPushSubjects.every)?.(msg);
  return { push, deliver, status, subjects: [...handlers.keys()] };
}

/** A stream that records its frames as text. */
function recordingStream() {
  const frames: string[] = [];
  let ended = false;
  const stream: PushStream = {
    send: (message) => frames.push(frame(message)),
    post: (message) => frames.push(frame(message)),
    write: (bytes) => frames.push(text(bytes) as string),
    end: () => {
      ended = true;
    },
    ended: () => ended,
  };
  return { stream, frames, ended: () => ended };
}

describe('push frames', () => {
  it('sends a room as its RoomView with the version as id, and a deletion with its reason', () => {
    expect(frame({ type: 'room', room: room('r1', 7) })).toBe(
      `id: 7\nevent: room\ndata: ${JSON.stringify(room('r1', 7))}\n\n`,
    );
    expect(frame({ type: 'room-deleted', roomId: 'r1', version: 9, reason: 'left' })).toBe(
      'id: 9\nevent: room-deleted\ndata: {"roomId":"r1","version":9,"reason":"left"}\n\n',
    );
  });
});

describe('RoomChange: a push as it came, and the frame each stream gets of it', () => {
  const at8 = roomAt(8, 1, 3);
  const moves8 = change(statePush(at8, 2));

  it('forwards the body as it came to a stream that has the moves before it, the same bytes for every stream', () => {
    const body = `id: 8\nevent: room-moves\ndata: ${JSON.stringify(toRoomMoves(at8, 2))}\n\n`;
    const first = moves8.frameFor({ gameNumber: 1, moves: 2 });
    expect(text(first)).toBe(body);
    expect(moves8.frameFor({ gameNumber: 1, moves: 2 })).toBe(first);
  });

  it("sends fewer moves to a stream that has some of the body's, and the whole room for a new game", () => {
    expect(JSON.parse(text(moves8.frameFor({ gameNumber: 1, moves: 3 }))?.split('data: ')[1] ?? '')).toEqual(
      toRoomMoves(at8, 3),
    );
    const newGame = change(statePush(roomAt(9, 2, 0), 0));
    expect(text(newGame.frameFor({ gameNumber: 1, moves: 3 }))).toBe(
      `id: 9\nevent: room\ndata: ${JSON.stringify(roomAt(9, 2, 0))}\n\n`,
    );
    expect(text(newGame.frameFor({ gameNumber: 2, moves: 0 }))).toContain('event: room-moves');
  });

  it("has no frame for a stream that lacks moves before the body's: it must read the room again", () => {
    expect(moves8.frameFor({ gameNumber: 1, moves: 1 })).toBeNull();
    expect(moves8.frameFor({ gameNumber: 0, moves: 0 })).toBeNull();
  });

  it('sends a deletion as it came, and gives the list a summary or the deletion', () => {
    const gone = change(gonePush(10));
    expect(text(gone.frameFor({ gameNumber: 1, moves: 3 }))).toBe(
      'id: 10\nevent: room-deleted\ndata: {"roomId":"r1","version":10,"reason":"left"}\n\n',
    );
    expect(gone.listMessage()).toEqual({ type: 'room-deleted', roomId: 'r1', version: 10, reason: 'left' });
    expect(moves8.listMessage()).toMatchObject({ type: 'room', room: { _id: 'r1', version: 8 } });
  });

  it('is no change without the headers of a push', () => {
    const msg = statePush(at8, 2);
    expect(RoomChange.of({ ...msg, headers: undefined } as unknown as Msg)).toBeNull();
  });
});

describe('RoomFollower: one stream following one room', () => {
  it('sends the room, then each newer change; a change it has (a late or repeated one) is dropped', () => {
    const { stream, frames } = recordingStream();
    const follower = new RoomFollower(stream, roomAt(5, 1, 2), () => Promise.reject(new Error('no read')));
    follower.take(change(statePush(roomAt(6, 1, 3), 2)));
    follower.take(change(statePush(roomAt(7, 1, 4), 3)));
    follower.take(change(statePush(roomAt(6, 1, 3), 2)));
    expect(frames.map((f) => f.split('\n').slice(0, 2).join(' '))).toEqual([
      'id: 5 event: room',
      'id: 6 event: room-moves',
      'id: 7 event: room-moves',
    ]);
    expect(frames[2]).toBe(
      `id: 7\nevent: room-moves\ndata: ${JSON.stringify(toRoomMoves(roomAt(7, 1, 4), 3))}\n\n`,
    );
  });

  it('reads the room again after a push it missed, then sends what came meanwhile', async () => {
    const { stream, frames } = recordingStream();
    let read!: (view: RoomView) => void;
    const follower = new RoomFollower(
      stream,
      roomAt(5, 1, 2),
      () => new Promise<RoomView>((resolve) => (read = resolve)),
    );
    follower.take(change(statePush(roomAt(7, 1, 4), 3))); // version 6 went missing
    follower.take(change(statePush(roomAt(8, 1, 5), 4)));
    expect(frames).toHaveLength(1);
    read(roomAt(7, 1, 4));
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames.map((f) => f.split('\n').slice(0, 2).join(' '))).toEqual([
      'id: 5 event: room',
      'id: 7 event: room',
      'id: 8 event: room-moves',
    ]);
  });

  it('ends with the deletion, or when the room cannot be read again', async () => {
    const done = recordingStream();
    new RoomFollower(done.stream, roomAt(5, 1, 2), () => Promise.reject(new Error('no read'))).take(
      change(gonePush(6)),
    );
    expect(done.frames.at(-1)).toContain('event: room-deleted');
    expect(done.ended()).toBe(true);

    const lost = recordingStream();
    new RoomFollower(lost.stream, roomAt(5, 1, 2), () => Promise.reject(new Error('gone'))).take(
      change(statePush(roomAt(9, 1, 6), 5)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost.ended()).toBe(true);
    expect(lost.frames).toHaveLength(1);
  });
});

describe('RoomPushService', () => {
  it('listens to the room pushes on core NATS and fans changes out per room and to the list', () => {
    const { push, deliver, subjects } = service();
    expect(subjects).toEqual([RoomPushSubjects.every]);
    const one: RoomChange[] = [];
    const all: unknown[] = [];
    const stopOne = push.watchRoom('r1', (c) => one.push(c));
    push.watchAll((m) => all.push(m));
    deliver(statePush(roomAt(2, 1, 0), 0));
    deliver(
      pushMsg({ type: 'room', version: 5, gameNumber: 0, movesFrom: 0, moves: 0 }, roomAt(5, 0, 0), 'r2'),
    );
    stopOne();
    deliver(gonePush(3));
    expect(one.map((c) => c.meta.version)).toEqual([2]);
    expect(all).toHaveLength(3);
  });

  it('sends the list summaries (one per change, whatever the number of watchers)', () => {
    const { push, deliver } = service();
    // The list's fields, written out: anything else a room holds (game state) stays out of it.
    const summary: RoomSummary = {
      _id: 'r1',
      name: 'Room 1',
      roomNumber: 1,
      gameType: 'quick-battle',
      createdBy: { id: 'a', name: 'Alice' },
      duration: 32,
      hasPassCode: true,
      players: [{ id: 'a', name: 'Alice' }],
      gameStarted: true,
      gameOver: false,
      version: 4,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const full = {
      ...summary,
      serverNow: 1,
      whosTurn: { gameNumber: 1, moves: [move(3)] },
    } as unknown as RoomView;
    const lists: unknown[][] = [[], []];
    for (const list of lists) push.watchAll((m) => list.push(m));
    deliver(statePush(full, 0));
    expect(lists[0]).toEqual([{ type: 'room', room: summary }]);
    expect(lists[1]?.[0]).toBe(lists[0]?.[0]);
    expect(frame(lists[0]?.[0] as never)).toBe(`id: 4\nevent: room\ndata: ${JSON.stringify(summary)}\n\n`);
  });

  it('keeps a room whose latest push held it whole, for a stream opened just after, with the time now', () => {
    jest.useFakeTimers({ now: Date.parse('2026-12-04T10:00:00Z') });
    try {
      const { push, deliver } = service();
      deliver(statePush({ ...roomAt(1, 1, 0), serverNow: 1 } as RoomView, 0));
      jest.advanceTimersByTime(1_500);
      expect(push.recentRoom('r1')).toEqual({
        ...roomAt(1, 1, 0),
        serverNow: toSpecSeconds(Date.parse('2026-12-04T10:00:01.500Z')),
      });
      expect(push.recentRoom('r2')).toBeUndefined();
      // Past RECENT_ROOM_MS the room is read again.
      jest.advanceTimersByTime(3_500);
      expect(push.recentRoom('r1')).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps no room whose latest push held only moves or its deletion, whatever order pushes cross in', () => {
    const { push, deliver } = service();
    deliver(statePush(roomAt(1, 1, 0), 0));
    deliver(statePush(roomAt(2, 1, 1), 0));
    expect(push.recentRoom('r1')?.version).toBe(2);
    deliver(statePush(roomAt(3, 1, 2), 1));
    expect(push.recentRoom('r1')).toBeUndefined();
    // A whole room pushed by another rooms replica before the moves, heard after them.
    deliver(statePush(roomAt(2, 1, 1), 0));
    expect(push.recentRoom('r1')).toBeUndefined();
    deliver(statePush(roomAt(4, 2, 0), 0));
    expect(push.recentRoom('r1')?.version).toBe(4);
    deliver(gonePush(5));
    expect(push.recentRoom('r1')).toBeUndefined();
  });

  it('forgets the rooms it heard when its NATS connection goes away: pushes may be lost meanwhile', async () => {
    const { push, deliver, status } = service();
    deliver(statePush(roomAt(1, 1, 0), 0));
    await status('pingTimer');
    expect(push.recentRoom('r1')?.version).toBe(1);
    await status('disconnect');
    expect(push.recentRoom('r1')).toBeUndefined();
    deliver(statePush(roomAt(2, 2, 0), 0));
    await status('reconnect');
    expect(push.recentRoom('r1')).toBeUndefined();
  });

  it('gives a client address at most PUSH_STREAMS_PER_ADDRESS places, then 429 with Retry-After', () => {
    const { push } = service(2);
    const first = push.takePlace('1.2.3.4');
    push.takePlace('1.2.3.4');
    expectRefused(() => push.takePlace('1.2.3.4'), 'RATE_LIMITED', PUSH_MESSAGES.tooManyStreams);
    expect(() => push.takePlace('5.6.7.8')).not.toThrow();
    first();
    first(); // a second release gives back nothing more
    expect(() => push.takePlace('1.2.3.4')).not.toThrow();
    expect(() => push.takePlace('1.2.3.4')).toThrow(RetryLaterError);
  });

  it('holds at most PUSH_STREAMS_PER_REPLICA places in all, whatever the addresses, then 503 with Retry-After', () => {
    const { push } = service(20, 3);
    const releases = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((address) => push.takePlace(address));
    expectRefused(() => push.takePlace('10.0.0.4'), 'UNAVAILABLE', PUSH_MESSAGES.replicaFull);
    releases[1]?.();
    releases[1]?.(); // a second release gives back nothing more
    expect(() => push.takePlace('10.0.0.4')).not.toThrow();
    expect(() => push.takePlace('10.0.0.5')).toThrow(RetryLaterError);
  });

  it('cleans up at once a stream whose client left before it opened', () => {
    const { push } = service();
    const res = new FakeResponse();
    res.destroyed = true;
    let closed = 0;
    const stream = push.open(res as unknown as Response, () => closed++);
    expect(closed).toBe(1);
    expect(stream.ended()).toBe(true);
    stream.send({ type: 'room', room: room('r1', 1) });
    expect(res.chunks).toEqual([]);
    expect(res.statusCode).toBe(0);
  });

  it('opens a stream that proxies do not buffer, beats, and cleans up when the client goes', () => {
    jest.useFakeTimers();
    try {
      const { push } = service();
      const res = new FakeResponse();
      let closed = 0;
      const stream = push.open(res as unknown as Response, () => closed++);
      expect(res.statusCode).toBe(200);
      expect(res.flushed).toBe(true);
      expect(res.headers).toMatchObject({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      stream.send({ type: 'room', room: room('r1', 1) });
      jest.advanceTimersByTime(PUSH_HEARTBEAT_SECONDS * 1000);
      expect(res.chunks.at(-1)).toBe(': heartbeat\n\n');
      res.emit('close');
      expect(closed).toBe(1);
      const written = res.chunks.length;
      jest.advanceTimersByTime(PUSH_HEARTBEAT_SECONDS * 3000);
      stream.send({ type: 'room', room: room('r1', 2) });
      expect(res.chunks).toHaveLength(written);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('RoomPushService: clients that do not read', () => {
  const summary = (id: string, version: number): ListPushMessage => ({
    type: 'room',
    room: room(id, version) as unknown as RoomSummary,
  });
  const open = (push: RoomPushService) => {
    const res = new FakeResponse();
    const closed = { count: 0 };
    const stream = push.open(res as unknown as Response, () => closed.count++);
    return { res, stream, closed };
  };

  it('destroys a stream that owes more than PUSH_BUFFER_BYTES_PER_STREAM, and frees its place only when its socket is gone', () => {
    const { push } = service(20, 10_000, { perStream: 4096 });
    const { res, stream, closed } = open(push);
    res.stalled = true;
    for (let version = 1; version <= 200 && !res.destroyed; version++) {
      stream.send({ type: 'room', room: room('r1', version) });
    }
    expect(res.destroyed).toBe(true);
    expect(res.ended).toBe(false);
    expect(stream.ended()).toBe(true);
    expect(closed.count).toBe(0);
    res.emit('close');
    expect(closed.count).toBe(1);
  });

  it('holds the latest summary per room for a list client that is behind, and sends them in one write when it reads', () => {
    const { push } = service();
    const { res, stream } = open(push);
    res.stalled = true;
    stream.post(summary('r1', 1));
    stream.post(summary('r2', 1));
    stream.post(summary('r1', 3));
    stream.post(summary('r1', 2)); // older than the one held
    const gone: ListPushMessage = { type: 'room-deleted', roomId: 'r3', version: 5, reason: 'left' };
    stream.post(gone);
    expect(res.chunks).toEqual(['retry: 3000\n\n', frame(summary('r1', 1))]);
    res.flush();
    expect(res.chunks.slice(2)).toEqual([frame(summary('r2', 1)) + frame(summary('r1', 3)) + frame(gone)]);
    stream.post(summary('r2', 2));
    expect(res.chunks.at(-1)).toBe(frame(summary('r2', 2)));
  });

  it('destroys a stream whose client reads nothing for PUSH_STALL_TIMEOUT_S while bytes wait, not one that reads', () => {
    jest.useFakeTimers();
    try {
      const { push } = service(20, 10_000, { stallS: 30 });
      const stalled = open(push);
      const reading = open(push);
      const idle = open(push);
      for (const { res, stream } of [stalled, reading]) {
        res.stalled = true;
        stream.post(summary('r1', 1));
      }
      jest.advanceTimersByTime(20_000);
      reading.res.flush();
      reading.res.stalled = true;
      reading.stream.post(summary('r1', 2));
      jest.advanceTimersByTime(11_000);
      expect(stalled.res.destroyed).toBe(true);
      expect(reading.res.destroyed).toBe(false);
      expect(idle.res.destroyed).toBe(false);

      // An ended stream whose client reads nothing is destroyed after the same time.
      reading.stream.end();
      expect(reading.res.ended).toBe(true);
      jest.advanceTimersByTime(30_000);
      expect(reading.res.destroyed).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('over PUSH_BUFFER_BYTES_PER_REPLICA, destroys the streams that owe the most', () => {
    const { push } = service(20, 10_000, { perStream: 1024 * 1024, perReplica: 10_000 });
    const [big, small, fast] = [open(push), open(push), open(push)];
    big.res.stalled = true;
    small.res.stalled = true;
    big.stream.write(`: ${'x'.repeat(6000)}\n\n`);
    small.stream.write(`: ${'x'.repeat(2000)}\n\n`);
    fast.stream.write(`: ${'x'.repeat(6000)}\n\n`);
    expect([big, small, fast].map((s) => s.res.destroyed)).toEqual([false, false, false]);
    small.stream.write(`: ${'x'.repeat(3000)}\n\n`);
    expect([big, small, fast].map((s) => s.res.destroyed)).toEqual([true, false, false]);
  });

  it('on shutdown, ends the streams and destroys the ones whose client is not reading', () => {
    const { push } = service();
    const stalled = open(push);
    const reading = open(push);
    stalled.res.stalled = true;
    stalled.stream.post(summary('r1', 1));
    push.beforeApplicationShutdown();
    expect(stalled.res.destroyed).toBe(true);
    expect(reading.res.ended).toBe(true);
    expect(reading.res.destroyed).toBe(false);
  });
});
