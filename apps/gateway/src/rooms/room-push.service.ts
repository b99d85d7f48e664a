import { Inject, Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  type EventEnvelope,
  type EventPayloads,
  EventTypes,
  type ListPushMessage,
  PUSH_HEARTBEAT_SECONDS,
  PUSH_MESSAGES,
  PUSH_RETRY_AFTER_SECONDS,
  type PushMessage,
  type RoomView,
  toRoomMoves,
  toRoomSummary,
} from '@oasis198/contracts';
import {
  CONFIG,
  JetStreamService,
  LOGGER,
  type Logger,
  Metrics,
  RetryLaterError,
} from '@oasis198/service-kit';
import type { Response } from 'express';
import { Gauge } from 'prom-client';
import type { GatewayConfig } from '../config';

type Listener = (message: PushMessage) => void;
type ListListener = (message: ListPushMessage) => void;

/** An open event stream: push messages (`send`), a frame of another stream's own (`write`), its end. */
export interface PushStream {
  send: (message: PushMessage | ListPushMessage) => void;
  write: (frame: string) => void;
  end: () => void;
  ended: () => boolean;
}

/** A client whose unsent output passes this is too slow to follow: its stream is closed (it reconnects). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Live room changes for the browsers connected to this gateway replica. Every replica
 * subscribes to room.created / room.updated / room.deleted on core NATS (JetStream publishes
 * reach core subscribers too), so any replica can serve any watcher and no replica keeps state
 * another one needs.
 */
@Injectable()
export class RoomPushService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly all = new Set<ListListener>();
  private readonly byRoom = new Map<string, Set<Listener>>();
  private readonly streams = new Set<Response>();
  /** Streams held per client address: open ones and ones still waiting for their room. */
  private readonly perAddress = new Map<string, number>();
  private readonly maxPerAddress: number;

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) config: GatewayConfig,
    metrics: Metrics,
  ) {
    this.maxPerAddress = config.PUSH_STREAMS_PER_ADDRESS;
    const streams = this.streams;
    new Gauge({
      name: 'oasis_push_streams',
      help: 'Server-Sent Events streams open on this gateway replica.',
      registers: [metrics.registry],
      collect() {
        this.set(streams.size);
      },
    });
  }

  onModuleInit(): void {
    for (const subject of [EventTypes.roomCreated, EventTypes.roomUpdated, EventTypes.roomDeleted]) {
      this.jetstream.subscribe(subject, (data) => this.dispatch(data as EventEnvelope));
    }
  }

  /** Ends the live streams before the HTTP server closes: it would wait for them forever. */
  beforeApplicationShutdown(): void {
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  /** Calls the listener with every change of one room; returns the unsubscribe function. */
  watchRoom(roomId: string, listener: Listener): () => void {
    let set = this.byRoom.get(roomId);
    if (!set) this.byRoom.set(roomId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byRoom.get(roomId) === set) this.byRoom.delete(roomId);
    };
  }

  /** Calls the listener with a summary of every change of every room; returns the unsubscribe function. */
  watchAll(listener: ListListener): () => void {
    this.all.add(listener);
    return () => this.all.delete(listener);
  }

  /** Listeners of one room's changes (streams open or opening), e.g. to see that none is left behind. */
  watching(roomId: string): number {
    return this.byRoom.get(roomId)?.size ?? 0;
  }

  /**
   * Takes one of the client address's PUSH_STREAMS_PER_ADDRESS places on this replica before a
   * stream opens, or refuses with 429 (DECISIONS "Fair play"); returns the release, which works once.
   */
  takePlace(address: string): () => void {
    const held = this.perAddress.get(address) ?? 0;
    if (held >= this.maxPerAddress) {
      throw new RetryLaterError('RATE_LIMITED', PUSH_MESSAGES.tooManyStreams, PUSH_RETRY_AFTER_SECONDS);
    }
    this.perAddress.set(address, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    };
  }

  /**
   * A stream that needs nothing before it opens (the room list, the leaderboard): takes one of the
   * address's places (or 429), opens the stream and subscribes it with `follow`, which returns the
   * unsubscribe function. When the client goes, both the subscription and the place are released.
   */
  serve(address: string, res: Response, follow: (stream: PushStream) => () => unknown): void {
    const release = this.takePlace(address);
    let unsubscribe: () => unknown = () => undefined;
    // open() may call its clean-up at once (a client already gone), before follow() has run.
    const stream = this.open(res, () => {
      unsubscribe();
      release();
    });
    if (!stream.ended()) unsubscribe = follow(stream);
  }

  /**
   * Turns an HTTP response into an event stream: headers that keep proxies from buffering or
   * caching it, a heartbeat comment every PUSH_HEARTBEAT_SECONDS, and clean-up (`onClose`, once)
   * when the client goes. A client that has already gone is cleaned up at once. Returns a writer
   * for push messages (and `write` for a frame of another stream's own), and a way to end the stream.
   */
  open(res: Response, onClose: () => void): PushStream {
    if (res.destroyed) {
      onClose();
      return { send: () => undefined, write: () => undefined, end: () => undefined, ended: () => true };
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.write(`retry: 3000\n\n`);
    this.streams.add(res);

    let ended = false;
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), PUSH_HEARTBEAT_SECONDS * 1000);
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      this.streams.delete(res);
      onClose();
      res.end();
    };
    const write = (chunk: string) => {
      if (ended) return;
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        this.logger.warn('closing a push stream whose client does not keep up');
        end();
        return;
      }
      res.write(chunk);
    };
    res.on('close', end);
    return { send: (message) => write(frame(message)), write, end, ended: () => ended };
  }

  private dispatch(event: EventEnvelope): void {
    const message = toPush(event);
    if (!message) return;
    const roomId = message.type === 'room' ? message.room._id : message.roomId;
    if (this.all.size > 0) {
      const summary = toListPush(message);
      for (const listener of this.all) listener(summary);
    }
    for (const listener of this.byRoom.get(roomId) ?? []) listener(message);
  }
}

/** The room list's version of a push: a room's summary instead of the room. */
export function toListPush(message: PushMessage): ListPushMessage {
  return message.type === 'room' ? { type: 'room', room: toRoomSummary(message.room) } : message;
}

export function toPush(event: EventEnvelope): PushMessage | null {
  switch (event?.type) {
    case EventTypes.roomCreated:
    case EventTypes.roomUpdated: {
      const { room } = event.data as EventPayloads[typeof EventTypes.roomUpdated];
      return room ? { type: 'room', room } : null;
    }
    case EventTypes.roomDeleted: {
      const { roomId, version, reason } = event.data as EventPayloads[typeof EventTypes.roomDeleted];
      return { type: 'room-deleted', roomId, version, reason };
    }
    default:
      return null;
  }
}

const frames = new WeakMap<PushMessage | ListPushMessage, string>();

/**
 * One SSE frame: the room version as id, the push type as event, the payload as data. Built once
 * per message, however many streams it goes to (the two players and every watcher).
 */
export function frame(message: PushMessage | ListPushMessage): string {
  let text = frames.get(message);
  if (text === undefined) {
    text = buildFrame(message);
    frames.set(message, text);
  }
  return text;
}

function buildFrame(message: PushMessage | ListPushMessage): string {
  if (message.type === 'room') {
    return `id: ${message.room.version}\nevent: room\ndata: ${JSON.stringify(message.room)}\n\n`;
  }
  const { type, ...gone } = message;
  return `id: ${message.version}\nevent: ${type}\ndata: ${JSON.stringify(gone)}\n\n`;
}

const movesFrames = new WeakMap<RoomView, Map<number, string>>();

/**
 * A `room-moves` frame: the room with only the moves from `movesFrom` on. Built once per room and
 * starting point; the streams of one room usually share both (its players and watchers all had
 * the previous version).
 */
export function movesFrame(room: RoomView, movesFrom: number): string {
  let byStart = movesFrames.get(room);
  if (!byStart) movesFrames.set(room, (byStart = new Map()));
  let text = byStart.get(movesFrom);
  if (text === undefined) {
    text = `id: ${room.version}\nevent: room-moves\ndata: ${JSON.stringify(toRoomMoves(room, movesFrom))}\n\n`;
    byStart.set(movesFrom, text);
  }
  return text;
}

export const versionOf = (message: PushMessage): number =>
  message.type === 'room' ? message.room.version : message.version;
