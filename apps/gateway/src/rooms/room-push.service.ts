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
import { toSpecSeconds } from '@oasis198/game-rules';
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
import { Counter, Gauge } from 'prom-client';
import type { GatewayConfig } from '../config';

type Listener = (change: RoomChange) => void;
type ListListener = (message: ListPushMessage) => void;

/** An open event stream: push messages (`send`), a frame built elsewhere (`write`), its end. */
export interface PushStream {
  send: (message: PushMessage | ListPushMessage) => void;
  /** A room-list message: a client that is behind gets the latest one per room, not every one. */
  post: (message: ListPushMessage) => void;
  write: (frame: string | Uint8Array) => void;
  end: () => void;
  ended: () => boolean;
}

/** Why a stream was cut: over its own bound, stalled, or the biggest when the replica was over its budget. */
type CutReason = 'behind' | 'stalled' | 'budget';

/**
 * How long, and for how many rooms, the latest push of a room is kept when it holds the whole
 * room (a new room, or a game before its first move): a stream opened meanwhile starts from it
 * instead of asking rooms. An arena's start opens hundreds of rooms, and their players' streams,
 * in a second; each read would wait behind those openings in the rooms service. The bound keeps
 * the memory small: such a push is about a kilobyte, and 2,048 of them, parsed, about 6 MB.
 */
const RECENT_ROOM_MS = 5_000;
const RECENT_ROOMS_MAX = 2_048;

/** The latest push heard of a room: the whole room when that push held it, else only its version. */
interface RecentRoom {
  version: number;
  whole: RoomChange | null;
  at: number;
}

/**
 * Live room changes for the browsers connected to this gateway replica. Every replica subscribes
 * to the rooms' pushes on core NATS (RoomPushSubjects), so any replica can serve any watcher and
 * no replica keeps state another one needs.
 */
@Injectable()
export class RoomPushService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly all = new Set<ListListener>();
  private readonly byRoom = new Map<string, Set<Listener>>();
  private readonly outlets = new Set<Outlet>();
  /** RECENT_ROOM_MS of pushes, by room, oldest first. */
  private readonly recent = new Map<string, RecentRoom>();
  /** Streams held per client address: open ones and ones still waiting for their room. */
  private readonly perAddress = new Map<string, number>();
  private readonly maxPerAddress: number;
  /** Places held on this replica, every address together. */
  private held = 0;
  private readonly maxPerReplica: number;
  /** What every open stream owes its client together (Outlet.owed), against PUSH_BUFFER_BYTES_PER_REPLICA. */
  private owed = 0;
  private readonly limits: OutletLimits;
  private readonly sweeper: NodeJS.Timeout;
  private readonly cuts: Counter<'reason'>;

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) config: GatewayConfig,
    metrics: Metrics,
  ) {
    this.maxPerAddress = config.PUSH_STREAMS_PER_ADDRESS;
    this.maxPerReplica = config.PUSH_STREAMS_PER_REPLICA;
    this.limits = {
      perStream: config.PUSH_BUFFER_BYTES_PER_STREAM,
      perReplica: config.PUSH_BUFFER_BYTES_PER_REPLICA,
      stallMs: config.PUSH_STALL_TIMEOUT_S * 1000,
    };
    const outlets = this.outlets;
    new Gauge({
      name: 'oasis_push_streams',
      help: 'Server-Sent Events streams open on this gateway replica.',
      registers: [metrics.registry],
      collect() {
        this.set(outlets.size);
      },
    });
    const owed = () => this.owed;
    new Gauge({
      name: 'oasis_push_buffered_bytes',
      help: 'Bytes the open push streams owe their clients (held by Node or waiting), every stream together.',
      registers: [metrics.registry],
      collect() {
        this.set(owed());
      },
    });
    this.cuts = new Counter({
      name: 'oasis_push_streams_cut_total',
      help: 'Push streams closed because their client did not read: behind (over its own bound), stalled, or budget.',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
    this.sweeper = setInterval(
      () => this.sweep(),
      Math.min(1000, this.limits.stallMs / 2, RECENT_ROOM_MS / 2),
    );
    this.sweeper.unref();
  }

  onModuleInit(): void {
    this.jetstream.subscribeMessages(RoomPushSubjects.every, (msg) => this.dispatch(msg));
    void this.forgetWhenAway();
  }

  /** Pushes sent while the connection was away are lost: the rooms heard before may have changed since. */
  private async forgetWhenAway(): Promise<void> {
    for await (const status of this.jetstream.nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') this.recent.clear();
    }
  }

  /**
   * Ends the live streams before the HTTP server closes: it would wait for them forever. One
   * whose client is not reading is destroyed: its bytes would keep the server open.
   */
  beforeApplicationShutdown(): void {
    clearInterval(this.sweeper);
    for (const outlet of this.outlets) outlet.close();
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

  /**
   * The room as its latest push (heard within RECENT_ROOM_MS) left it, when that push held the
   * whole room, with the server's time now; undefined otherwise (the room must be read). A change
   * that comes after it reaches the stream's listener (watchRoom) as any other.
   */
  recentRoom(roomId: string): RoomView | undefined {
    const recent = this.recent.get(roomId);
    if (!recent?.whole || Date.now() - recent.at >= RECENT_ROOM_MS) return undefined;
    return { ...recent.whole.wholeRoom(), serverNow: toSpecSeconds(Date.now()) };
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
   * when its socket is gone. A client that has already gone is cleaned up at once. Returns a writer
   * for push messages (and `write` for a frame of another stream's own), and a way to end the stream.
   */
  open(res: Response, onClose: () => void): PushStream {
    if (res.destroyed) {
      onClose();
      return {
        send: () => undefined,
        post: () => undefined,
        write: () => undefined,
        end: () => undefined,
        ended: () => true,
      };
    }
    const outlet = new Outlet(res, this.limits, {
      owe: (delta) => this.owe(delta),
      cut: (reason) => this.cut(reason),
      closed: () => {
        this.outlets.delete(outlet);
        onClose();
      },
    });
    this.outlets.add(outlet);
    return outlet;
  }

  /** Adds to what the streams owe together; over the replica's budget, the biggest debtors are cut. */
  private owe(delta: number): void {
    this.owed += delta;
    if (this.owed > this.limits.perReplica) this.shed();
  }

  private shedding = false;

  private shed(): void {
    if (this.shedding) return;
    this.shedding = true;
    try {
      // The counts are from each stream's last write: Node may have sent part since.
      for (const outlet of this.outlets) outlet.recount();
      if (this.owed <= this.limits.perReplica) return;
      const debtors = [...this.outlets].filter((o) => o.owed > 0).sort((a, b) => b.owed - a.owed);
      for (const outlet of debtors) {
        if (this.owed <= this.limits.perReplica) break;
        outlet.cut('budget');
      }
    } finally {
      this.shedding = false;
    }
  }

  private cut(reason: CutReason): void {
    this.cuts.inc({ reason });
    this.logger.warn({ reason }, 'closing a push stream whose client does not read');
  }

  /** Cuts the streams whose client has read nothing for PUSH_STALL_TIMEOUT_S while bytes waited for it. */
  private sweep(): void {
    const now = Date.now();
    for (const outlet of this.outlets) outlet.checkStall(now);
    for (const [roomId, recent] of this.recent) {
      if (now - recent.at < RECENT_ROOM_MS) break;
      this.recent.delete(roomId);
    }
  }

  /** Keeps the room's latest push (by version: pushes of two rooms replicas may cross). */
  private remember(change: RoomChange): void {
    const known = this.recent.get(change.roomId);
    if (known && known.version >= change.meta.version) return;
    this.recent.delete(change.roomId);
    this.recent.set(change.roomId, {
      version: change.meta.version,
      // A copy: the body as received may be a view of a bigger read buffer, which it would keep.
      whole: change.holdsWholeRoom ? new RoomChange(change.roomId, change.meta, change.body.slice()) : null,
      at: Date.now(),
    });
    if (this.recent.size > RECENT_ROOMS_MAX) this.recent.delete(this.recent.keys().next().value as string);
  }

  private dispatch(msg: Msg): void {
    const change = RoomChange.of(msg);
    if (!change) {
      this.logger.warn({ subject: msg.subject }, 'a room push without its headers was dropped');
      return;
    }
    this.remember(change);
    if (this.all.size > 0) {
      const summary = change.listMessage();
      for (const listener of this.all) listener(summary);
    }
    for (const listener of this.byRoom.get(change.roomId) ?? []) listener(change);
  }
}

interface OutletLimits {
  /** PUSH_BUFFER_BYTES_PER_STREAM: what one stream may owe its client. */
  perStream: number;
  /** PUSH_BUFFER_BYTES_PER_REPLICA: what every stream together may owe. */
  perReplica: number;
  /** PUSH_STALL_TIMEOUT_S, in ms: how long a client may read nothing while bytes wait for it. */
  stallMs: number;
}

interface OutletHooks {
  /** What the stream owes changed by `delta` bytes. */
  owe: (delta: number) => void;
  /** The stream is being destroyed because its client does not read. */
  cut: (reason: CutReason) => void;
  /** Its socket is gone: the stream's place and subscription can go. */
  closed: () => void;
}

/**
 * One open event stream and what it owes its client. Node holds one write at a time for it: what
 * comes while that write waits for the kernel's socket buffer is held here (on the room list, only
 * the latest message per room) and goes out as one write when it is through. Past its bound, or
 * when its client reads nothing for the stall timeout, the stream is destroyed: an end would leave
 * its bytes queued on the socket. Its place is freed when the socket is gone.
 */
class Outlet implements PushStream {
  /** What this stream owes, as the replica's total counts it. */
  owed = 0;
  private done = false;
  private gone = false;
  /** Writes Node has not handed to the kernel yet. */
  private unflushed = 0;
  /** When Node last started holding bytes for this stream, or last got some through. */
  private since = 0;
  /** Frames held while a write is unflushed. */
  private readonly queue: (string | Uint8Array)[] = [];
  /** Room-list messages held while a write is unflushed: the latest per room, in the order they came. */
  private readonly latest = new Map<string, ListPushMessage>();
  private heldBytes = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private grace?: NodeJS.Timeout;

  constructor(
    private readonly res: Response,
    private readonly limits: OutletLimits,
    private readonly hooks: OutletHooks,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.put('retry: 3000\n\n');
    // Bytes on their way keep proxies from timing the stream out: no beat is needed then.
    this.heartbeat = setInterval(() => {
      if (this.unflushed === 0) this.write(': heartbeat\n\n');
    }, PUSH_HEARTBEAT_SECONDS * 1000);
    this.heartbeat.unref();
    res.once('close', () => this.closed());
  }

  readonly send = (message: PushMessage | ListPushMessage): void => this.write(frame(message));

  readonly write = (chunk: string | Uint8Array): void => {
    if (this.done) return;
    if (this.unflushed === 0) {
      this.put(chunk);
      return;
    }
    this.queue.push(chunk);
    this.hold(sizeOf(chunk));
  };

  readonly post = (message: ListPushMessage): void => {
    if (this.done) return;
    if (this.unflushed === 0) {
      this.put(frame(message));
      return;
    }
    const roomId = message.type === 'room' ? message.room._id : message.roomId;
    const held = this.latest.get(roomId);
    let delta = sizeOf(frame(message));
    if (held) {
      if (versionOf(held) > versionOf(message)) return;
      this.latest.delete(roomId);
      delta -= sizeOf(frame(held));
    }
    this.latest.set(roomId, message);
    this.hold(delta);
  };

  readonly end = (): void => {
    if (this.done) return;
    const rest = this.takeHeld();
    this.stop();
    if (rest) this.res.write(rest);
    this.res.end();
    // A client that reads nothing would keep the ended response, and its place, for ever.
    this.grace = setTimeout(() => this.res.destroy(), this.limits.stallMs);
    this.grace.unref();
  };

  readonly ended = (): boolean => this.done;

  /** Ends the stream for a shutdown: at once, unless its client can take the rest now. */
  close(): void {
    this.end();
    if (this.res.writableLength > 0) this.res.destroy();
  }

  /** Destroys the stream (its socket with it) because its client does not read. */
  cut(reason: CutReason): void {
    if (this.done) return;
    this.hooks.cut(reason);
    this.stop();
    this.gone = true;
    this.res.destroy();
    this.recount();
  }

  checkStall(now: number): void {
    if (this.unflushed > 0 && now - this.since >= this.limits.stallMs) this.cut('stalled');
  }

  /** Tells the replica what this stream owes now. */
  recount(): void {
    const owed = this.gone ? 0 : this.res.writableLength + this.heldBytes;
    const delta = owed - this.owed;
    this.owed = owed;
    if (delta !== 0) this.hooks.owe(delta);
  }

  private put(chunk: string | Uint8Array): void {
    if (this.unflushed++ === 0) this.since = Date.now();
    this.res.write(chunk, this.flushed);
    this.recount();
  }

  /** A write went through to the kernel: what was held meanwhile goes out as one write. */
  private readonly flushed = (error?: Error | null): void => {
    this.unflushed--;
    if (this.done || error) return;
    this.since = Date.now();
    const held = this.unflushed === 0 ? this.takeHeld() : null;
    if (held) this.put(held);
    else this.recount();
  };

  private hold(delta: number): void {
    this.heldBytes += delta;
    if (this.res.writableLength + this.heldBytes > this.limits.perStream) this.cut('behind');
    else this.recount();
  }

  /** The held frames as one chunk (none: null), no longer held. */
  private takeHeld(): string | Uint8Array | null {
    const chunks = [...this.queue, ...[...this.latest.values()].map(frame)];
    this.queue.length = 0;
    this.latest.clear();
    this.heldBytes = 0;
    if (chunks.length <= 1) return chunks[0] ?? null;
    if (chunks.every((chunk) => typeof chunk === 'string')) return chunks.join('');
    return Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
  }

  private stop(): void {
    this.done = true;
    clearInterval(this.heartbeat);
    this.queue.length = 0;
    this.latest.clear();
    this.heldBytes = 0;
  }

  private closed(): void {
    this.stop();
    clearTimeout(this.grace);
    this.gone = true;
    this.recount();
    this.hooks.closed();
  }
}

/** About a chunk's bytes (a string's UTF-16 length: room pushes are mostly ASCII). */
function sizeOf(chunk: string | Uint8Array): number {
  return typeof chunk === 'string' ? chunk.length : chunk.byteLength;
}

function versionOf(message: ListPushMessage): number {
  return message.type === 'room' ? message.room.version : message.version;
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

  /** Whether the body is the whole room: a new room, or a new game, with all its moves. */
  get holdsWholeRoom(): boolean {
    return this.meta.type === 'room' && this.meta.movesFrom === 0;
  }

  /** The whole room, of a change that holds it (holdsWholeRoom). */
  wholeRoom(): RoomView {
    return this.room();
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
