import { Inject, Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  type ListPushMessage,
  PUSH_HEARTBEAT_SECONDS,
  PUSH_MESSAGES,
  PUSH_RETRY_AFTER_SECONDS,
  type PushMessage,
  readRoomPushMeta,
  type RoomGonePush,
  type RoomMovesPushData,
  type RoomPushMeta,
  RoomPushSubjects,
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
import type { Msg } from 'nats';
import { Gauge } from 'prom-client';
import type { GatewayConfig } from '../config';

type Listener = (change: RoomChange) => void;
type ListListener = (message: ListPushMessage) => void;

/** An open event stream: push messages (`send`), a frame built elsewhere (`write`), its end. */
export interface PushStream {
  send: (message: PushMessage | ListPushMessage) => void;
  write: (frame: string | Uint8Array) => void;
  end: () => void;
  ended: () => boolean;
}

/** A client whose unsent output passes this is too slow to follow: its stream is closed (it reconnects). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Live room changes for the browsers connected to this gateway replica. Every replica subscribes
 * to the rooms' pushes on core NATS (RoomPushSubjects), so any replica can serve any watcher and
 * no replica keeps state another one needs.
 */
@Injectable()
export class RoomPushService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly all = new Set<ListListener>();
  private readonly byRoom = new Map<string, Set<Listener>>();
  private readonly streams = new Set<Response>();
  /** Streams held per client address: open ones and ones still waiting for their room. */
  private readonly perAddress = new Map<string, number>();
  private readonly maxPerAddress: number;
  /** Places held on this replica, every address together. */
  private held = 0;
  private readonly maxPerReplica: number;

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) config: GatewayConfig,
    metrics: Metrics,
  ) {
    this.maxPerAddress = config.PUSH_STREAMS_PER_ADDRESS;
    this.maxPerReplica = config.PUSH_STREAMS_PER_REPLICA;
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
    this.jetstream.subscribeMessages(RoomPushSubjects.every, (msg) => this.dispatch(msg));
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
   * The replica holds PUSH_STREAMS_PER_REPLICA in all, whatever the addresses (503 beyond): streams
   * from many addresses must not take the memory the replica needs (its pod limit).
   */
  takePlace(address: string): () => void {
    const held = this.perAddress.get(address) ?? 0;
    if (held >= this.maxPerAddress) {
      throw new RetryLaterError('RATE_LIMITED', PUSH_MESSAGES.tooManyStreams, PUSH_RETRY_AFTER_SECONDS);
    }
    if (this.held >= this.maxPerReplica) {
      throw new RetryLaterError('UNAVAILABLE', PUSH_MESSAGES.replicaFull, PUSH_RETRY_AFTER_SECONDS);
    }
    this.perAddress.set(address, held + 1);
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
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
    const write = (chunk: string | Uint8Array) => {
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

  private dispatch(msg: Msg): void {
    const change = RoomChange.of(msg);
    if (!change) {
      this.logger.warn({ subject: msg.subject }, 'a room push without its headers was dropped');
      return;
    }
    if (this.all.size > 0) {
      const summary = change.listMessage();
      for (const listener of this.all) listener(summary);
    }
    for (const listener of this.byRoom.get(change.roomId) ?? []) listener(change);
  }
}

const FRAME_END = Buffer.from('\n\n');
const utf8 = new TextDecoder();

/** What a room's stream has sent of the room: its game, and how many of that game's moves. */
interface Sent {
  gameNumber: number;
  moves: number;
}

/**
 * A room change as rooms pushed it: its headers say what it is (RoomPushMeta) and its body is an
 * SSE frame's data, forwarded byte for byte to every stream that has the moves before it (the two
 * players and the watchers, as a rule), neither decoded nor parsed. The rare stream that needs
 * another frame gets one built from the parsed body. Each frame is built once per change, as
 * bytes, however many streams it goes to.
 */
export class RoomChange {
  private parsed?: unknown;
  private readonly frames = new Map<string, Uint8Array>();

  constructor(
    readonly roomId: string,
    readonly meta: RoomPushMeta,
    /** The body as it came (UTF-8 JSON). */
    readonly body: Uint8Array,
  ) {}

  /** The change a push message carries; null when its headers are not a room push's. */
  static of(msg: Pick<Msg, 'subject' | 'headers' | 'data'>): RoomChange | null {
    const meta = readRoomPushMeta((name) => msg.headers?.get(name));
    const roomId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    return meta && roomId ? new RoomChange(roomId, meta, msg.data) : null;
  }

  /**
   * The frame that brings a stream which has sent `sent` to this change: the body itself when the
   * stream has the moves up to the body's first, the room with fewer moves when it has some of
   * the body's too, the whole room for a new game or room; null when the stream lacks moves
   * before the body's first (a push it missed), and must read the room again.
   */
  frameFor(sent: Sent): Uint8Array | null {
    const { meta } = this;
    if (meta.type === 'room-deleted') return this.frame('room-deleted', 'room-deleted', () => this.body);
    if (sent.gameNumber === meta.gameNumber && sent.moves >= meta.movesFrom && sent.moves <= meta.moves) {
      if (sent.moves === meta.movesFrom) return this.frame('room-moves', 'room-moves', () => this.body);
      return this.frame(`room-moves from ${sent.moves}`, 'room-moves', () =>
        JSON.stringify({ ...toRoomMoves(this.room(), sent.moves - meta.movesFrom), movesFrom: sent.moves }),
      );
    }
    return meta.movesFrom === 0 ? this.frame('room', 'room', () => JSON.stringify(this.room())) : null;
  }

  /** What the room list gets of the change: the room's summary, or its deletion. */
  listMessage(): ListPushMessage {
    if (this.meta.type === 'room-deleted') return { type: 'room-deleted', ...this.gone() };
    return { type: 'room', room: toRoomSummary(this.room()) };
  }

  /** What a stream that follows this change has sent of the room. */
  get sent(): Sent | null {
    return this.meta.type === 'room' ? { gameNumber: this.meta.gameNumber, moves: this.meta.moves } : null;
  }

  /** The body's room (with the moves from its movesFrom on). */
  private room(): RoomView {
    const { movesFrom: _from, ...room } = this.data() as RoomMovesPushData;
    return room;
  }

  private gone(): Omit<RoomGonePush, 'type'> {
    const { roomId, version, reason } = this.data() as RoomGonePush;
    return { roomId, version, reason };
  }

  private data(): unknown {
    this.parsed ??= JSON.parse(utf8.decode(this.body));
    return this.parsed;
  }

  /** The frame of an SSE event with this data (text, or the body's bytes), built once per change and `key`. */
  private frame(
    key: string,
    event: PushMessage['type'] | 'room-moves',
    data: () => string | Uint8Array,
  ): Uint8Array {
    let bytes = this.frames.get(key);
    if (bytes === undefined) {
      const head = Buffer.from(`id: ${this.meta.version}\nevent: ${event}\ndata: `);
      const body = data();
      bytes = Buffer.concat([head, typeof body === 'string' ? Buffer.from(body) : body, FRAME_END]);
      this.frames.set(key, bytes);
    }
    return bytes;
  }
}

/**
 * One stream's view of one room: the room as read when the stream opened, then every change as
 * the frame that brings the stream to it, in version order (an older change that arrives late is
 * dropped: a newer one has sent more). A change the stream cannot be brought to, because a push
 * went missing before it, reads the room again and sends it whole; the changes that arrive
 * meanwhile follow it. The stream ends with the room's deletion, or when the room cannot be read.
 */
export class RoomFollower {
  private last: number;
  private sent: Sent;
  /** Changes that arrived while the room was being read again; null while following. */
  private waiting: RoomChange[] | null = null;

  constructor(
    private readonly stream: PushStream,
    room: RoomView,
    private readonly read: () => Promise<RoomView>,
  ) {
    stream.send({ type: 'room', room });
    this.last = room.version;
    this.sent = { gameNumber: room.whosTurn.gameNumber, moves: room.whosTurn.moves.length };
  }

  take(change: RoomChange): void {
    if (this.waiting) {
      this.waiting.push(change);
      return;
    }
    if (change.meta.version <= this.last) return;
    const frame = change.frameFor(this.sent);
    if (frame === null) {
      this.waiting = [change];
      this.readAgain().catch(() => this.stream.end());
      return;
    }
    this.stream.write(frame);
    this.last = change.meta.version;
    const sent = change.sent;
    if (sent) this.sent = sent;
    else this.stream.end();
  }

  private async readAgain(): Promise<void> {
    const room = await this.read();
    if (room.version > this.last) {
      this.stream.send({ type: 'room', room });
      this.last = room.version;
      this.sent = { gameNumber: room.whosTurn.gameNumber, moves: room.whosTurn.moves.length };
    }
    const waiting = this.waiting ?? [];
    this.waiting = null;
    for (const change of waiting) this.take(change);
  }
}

const frames = new WeakMap<PushMessage | ListPushMessage, string>();

/**
 * One SSE frame: the room version as id, the push type as event, the payload as data. Built once
 * per message, however many streams it goes to (every room-list stream).
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
