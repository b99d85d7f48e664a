import {
  type EventEnvelope,
  PUSH_HEARTBEAT_SECONDS,
  PUSH_MESSAGES,
  type RoomSummary,
  type RoomView,
} from '@oasis198/contracts';
import { createLogger, type JetStreamService, Metrics, RetryLaterError } from '@oasis198/service-kit';
import type { GatewayConfig } from '../config';
import type { Response } from 'express';
import { EventEmitter } from 'node:events';
import { frame, movesFrame, RoomPushService, toPush } from './room-push.service';

const room = (id: string, version: number) => ({ _id: id, version, players: [] }) as unknown as RoomView;
const envelope = (type: string, data: unknown) =>
  ({ id: `${type}:x`, type, occurredAt: new Date().toISOString(), data }) as EventEnvelope;

/** The parts of an Express response an event stream uses, recording what was written. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  statusCode = 0;
  readonly headers: Record<string, string> = {};
  readonly chunks: string[] = [];
  writableLength = 0;
  ended = false;
  flushed = false;
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
  write(chunk: string) {
    this.chunks.push(chunk);
    return true;
  }
  end() {
    this.ended = true;
  }
}

function service(streamsPerAddress = 20) {
  const handlers = new Map<string, (data: unknown) => void>();
  const jetstream = {
    subscribe: (subject: string, handler: (data: unknown) => void) => handlers.set(subject, handler),
  };
  const push = new RoomPushService(
    jetstream as unknown as JetStreamService,
    createLogger('push-test', 'silent'),
    { PUSH_STREAMS_PER_ADDRESS: streamsPerAddress } as GatewayConfig,
    new Metrics('push-test'),
  );
  push.onModuleInit();
  const publish = (subject: string, data: unknown) => handlers.get(subject)?.(envelope(subject, data));
  return { push, publish, subjects: [...handlers.keys()] };
}

describe('push frames', () => {
  it('sends a room as its RoomView with the version as id, and a deletion with its reason', () => {
    expect(frame({ type: 'room', room: room('r1', 7) })).toBe(
      `id: 7\nevent: room\ndata: ${JSON.stringify(room('r1', 7))}\n\n`,
    );
    expect(frame({ type: 'room-deleted', roomId: 'r1', version: 9, reason: 'left' })).toBe(
      'id: 9\nevent: room-deleted\ndata: {"roomId":"r1","version":9,"reason":"left"}\n\n',
    );
    expect(toPush(envelope('room.updated', { room: room('r1', 3) }))).toEqual({
      type: 'room',
      room: room('r1', 3),
    });
    expect(
      toPush(envelope('room.deleted', { roomId: 'r1', version: 4, reason: 'empty', playerIds: ['a'] })),
    ).toEqual({
      type: 'room-deleted',
      roomId: 'r1',
      version: 4,
      reason: 'empty',
    });
    expect(toPush(envelope('move.made', {}))).toBeNull();
  });

  it('sends a change within a game as the room with the moves from movesFrom on, built once per start', () => {
    const moves = [1, 2, 3].map((n) => ({ player: 'player1', number: n, option: 'plain', total: n }));
    const changed = { ...room('r1', 8), whosTurn: { gameNumber: 1, moves } } as unknown as RoomView;
    const text = movesFrame(changed, 2);
    expect(text).toBe(
      `id: 8\nevent: room-moves\ndata: ${JSON.stringify({
        ...changed,
        whosTurn: { gameNumber: 1, moves: moves.slice(2) },
        movesFrom: 2,
      })}\n\n`,
    );
    expect(movesFrame(changed, 2)).toBe(text);
    expect(movesFrame(changed, 1)).toContain('"movesFrom":1');
  });
});

describe('RoomPushService', () => {
  it('listens to the room subjects on core NATS and fans changes out per room and to the list', () => {
    const { push, publish, subjects } = service();
    expect(subjects.sort()).toEqual(['room.created', 'room.deleted', 'room.updated']);
    const one: unknown[] = [];
    const all: unknown[] = [];
    const stopOne = push.watchRoom('r1', (m) => one.push(m));
    push.watchAll((m) => all.push(m));
    publish('room.updated', { room: room('r1', 2) });
    publish('room.updated', { room: room('r2', 5) });
    stopOne();
    publish('room.deleted', { roomId: 'r1', version: 3, reason: 'left', playerIds: [] });
    expect(one).toHaveLength(1);
    expect(all).toHaveLength(3);
  });

  it('sends the list summaries (one per change, whatever the number of watchers) and a room its full view', () => {
    const { push, publish } = service();
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
      whosTurn: { moves: [{ number: 3 }] },
    } as unknown as RoomView;
    const one: unknown[] = [];
    const lists: unknown[][] = [[], []];
    push.watchRoom('r1', (m) => one.push(m));
    for (const list of lists) push.watchAll((m) => list.push(m));
    publish('room.updated', { room: full });
    expect(one).toEqual([{ type: 'room', room: full }]);
    expect(lists[0]).toEqual([{ type: 'room', room: summary }]);
    expect(lists[1]?.[0]).toBe(lists[0]?.[0]);
    expect(frame(lists[0]?.[0] as never)).toBe(`id: 4\nevent: room\ndata: ${JSON.stringify(summary)}\n\n`);
  });

  it('gives a client address at most PUSH_STREAMS_PER_ADDRESS places, then 429 with Retry-After', () => {
    const { push } = service(2);
    const first = push.takePlace('1.2.3.4');
    push.takePlace('1.2.3.4');
    let refused: unknown;
    try {
      push.takePlace('1.2.3.4');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RetryLaterError);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      message: PUSH_MESSAGES.tooManyStreams,
      retryAfterS: 5,
    });
    expect(() => push.takePlace('5.6.7.8')).not.toThrow();
    first();
    first(); // a second release gives back nothing more
    expect(() => push.takePlace('1.2.3.4')).not.toThrow();
    expect(() => push.takePlace('1.2.3.4')).toThrow(RetryLaterError);
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

  it('drops a client that does not keep up', () => {
    const { push } = service();
    const res = new FakeResponse();
    let closed = 0;
    const stream = push.open(res as unknown as Response, () => closed++);
    res.writableLength = 2 * 1024 * 1024;
    stream.send({ type: 'room', room: room('r1', 1) });
    expect(res.ended).toBe(true);
    expect(closed).toBe(1);
  });
});
