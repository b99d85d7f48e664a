import { Consumers, consumersOf, type EventEnvelope, type RoomSchedule, Streams } from '@oasis198/contracts';
import {
  type DeadLetterPolicy,
  describeError,
  ensureConsumer,
  type JetStreamService,
  type Logger,
  type Metrics,
  type Refusals,
  PULL_EXPIRES_MS,
  retryDelayMs,
  scheduleOf,
  type ScheduleStore,
  takeUntilStopped,
} from '@oasis198/service-kit';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { Counter } from 'prom-client';
import type { ConsumerMessages, JsMsg } from 'nats';
import { type RoomLog, type RoomLogEntry, roomIdOf } from './room-log';
import { FIRST_ROOM_VERSION, type RoomRecord } from './room.schema';
import type { RoomsRepository } from './rooms.repository';
import { toRoomView } from './room-view';

export interface RoomProjectorOptions {
  /** How often projected rooms' older log messages are purged. */
  purgeEveryMs?: number;
  /** How long a deleted room's tombstone stays, so a GET still says why it was closed. */
  closedNoticeMs?: number;
}

/** A deleted room's tombstone stays this long by default (ROOM_CLOSED_NOTICE_S). */
const CLOSED_NOTICE_MS = 600_000;
/** How often the tombstones older than the notice are purged, at most. */
const CLOSED_SWEEP_EVERY_MS = 60_000;

/** Rooms whose last written version a replica remembers (about 100 bytes each). */
const WRITTEN_REMEMBERED = 20_000;

/** Messages being published at once (across rooms; one room's are handled in order). */
const MAX_IN_FLIGHT = 256;

/**
 * The room's schedule as a change leaves it: the deadlines of its room, or none (a cancellation at
 * the deletion's version) once it is deleted.
 */
export function scheduleOfEntry({ room, deleted }: Pick<RoomLogEntry, 'room' | 'deleted'>): RoomSchedule {
  return deleted
    ? { roomId: room._id, version: room.version, deadlines: [] }
    : scheduleOf(toRoomView(room, 0));
}

/** The event types some durable consumer of GAMES reads: the only ones published (room-events.ts). */
const READ_EVENT_TYPES: ReadonlySet<string> = new Set(
  consumersOf(Streams.games.name).flatMap((consumer) => consumer.filterSubjects),
);

/** Whether an entry's event goes to GAMES: one that a consumer reads (an entry's snapshots do not). */
export const isPublished = (event: EventEnvelope): boolean => READ_EVENT_TYPES.has(event.type);

/**
 * Turns the room log into its effects (events to GAMES, schedules to TIMERS, rooms to MongoDB),
 * one room's messages in order, and purges what is projected: docs/architecture.md tells when.
 */
export class RoomProjector {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private purgeTimer?: NodeJS.Timeout;
  private closedTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Each room's publishing, in order: one room's events never overtake each other here. */
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * Each room's MongoDB writes, in order, apart from its publishing: the events of a room's next
   * move do not wait for the database (docs/adr/0006-room-log-is-the-commit-point.md).
   */
  private readonly writes = new Map<string, Promise<void>>();
  /** Messages in hand at once, across rooms: the loop takes the next one when a slot is free. */
  private readonly inFlight = pLimit(MAX_IN_FLIGHT);
  /** Rooms projected since their last purge: the projected message's sequence. */
  private readonly projected = new Map<string, { seq: number }>();
  /**
   * Each room's last write to MongoDB by this replica, by either path, begun or done: its version
   * (Infinity: removed) and whether it succeeded. The service writes who is in which room before it
   * answers, and the consumer takes the same change meanwhile: it waits for that write instead of
   * queueing a second one, which FerretDB would serialize for nothing.
   */
  private readonly written = new LRUCache<string, { version: number; done: Promise<boolean> }>({
    max: WRITTEN_REMEMBERED,
  });
  /** Events of a message in hand already published (a retry on this replica starts after them). */
  private readonly publishedOf = new Map<number, number>();
  /** When JetStream first refused an event, by event id (for the dead-letter delay). */
  private readonly firstRefusedAt = new Map<string, number>();
  private readonly scheduleWrites?: Counter<'outcome'>;

  constructor(
    private readonly repository: RoomsRepository,
    private readonly jetstream: JetStreamService,
    private readonly log: RoomLog,
    private readonly schedules: Pick<ScheduleStore, 'write'>,
    private readonly logger: Logger,
    private readonly options: RoomProjectorOptions,
    private readonly deadLetters: DeadLetterPolicy,
    private readonly metrics?: Metrics,
  ) {
    if (metrics) {
      this.scheduleWrites = new Counter({
        name: 'oasis_rooms_schedule_writes_total',
        help: 'Room changes written as the room schedule of deadlines, by outcome (scheduled, cancelled, older: a newer one was there).',
        labelNames: ['outcome'] as const,
        registers: [metrics.registry],
      });
    }
  }

  onModuleInit(): Promise<void> {
    return this.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  async start(): Promise<void> {
    const { stream, durable } = Consumers.roomsProjector;
    const jsm = await this.jetstream.nc.jetstreamManager();
    await ensureConsumer(jsm, Consumers.roomsProjector, this.logger);
    const consumer = await this.jetstream.nc.jetstream().consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: 512, expires: PULL_EXPIRES_MS });
    const messages = this.messages;
    // Chained once it holds a slot: p-limit starts tasks in the order they came, so each room's
    // messages join its chain in stream order.
    this.loop = takeUntilStopped(
      messages,
      () => this.stopped,
      (msg) =>
        new Promise<void>((started) => {
          void this.inFlight(() => {
            started();
            return this.run(this.chains, roomIdOf(msg.subject), () => this.handle(msg));
          });
        }),
    ).catch((error) => this.logger.error({ err: error, consumer: durable }, 'room projector stopped'));
    this.purgeTimer = setInterval(() => void this.purge(), this.options.purgeEveryMs ?? 10_000);
    this.purgeTimer.unref();
    const noticeMs = this.options.closedNoticeMs ?? CLOSED_NOTICE_MS;
    this.closedTimer = setInterval(() => void this.sweepClosed(), Math.min(noticeMs, CLOSED_SWEEP_EVERY_MS));
    this.closedTimer.unref();
  }

  /** Stops taking messages: those being projected finish and are acked, the rest are given back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.purgeTimer);
    clearInterval(this.closedTimer);
    this.messages?.stop();
    await this.loop;
    await Promise.allSettled([...this.chains.values()]);
    await Promise.allSettled([...this.writes.values()]);
  }

  /**
   * Publishes one log message's events and projects its room: the whole of what a message does,
   * used by the consumer (and by tests, to show a redelivery changes nothing).
   */
  async project(entry: RoomLogEntry, seq: number, msgs: readonly JsMsg[] = []): Promise<void> {
    await this.announce(entry, seq, msgs[0]);
    await this.queueStore(entry, seq, msgs);
  }

  /**
   * A change's effects outside MongoDB, side by side: its events that have readers published to
   * GAMES, and its deadlines written as the room's schedule (the game timer gets them when due).
   * Either failing fails the message, which is then tried again whole; both repeat harmlessly.
   */
  private async announce(entry: RoomLogEntry, seq: number, msg?: JsMsg): Promise<void> {
    const [published, scheduled] = await Promise.allSettled([
      this.publish(entry.events.filter(isPublished), seq, msg),
      this.schedules.write(scheduleOfEntry(entry), { first: entry.room.version === FIRST_ROOM_VERSION }),
    ]);
    if (published.status === 'rejected') throw published.reason;
    if (scheduled.status === 'rejected') throw scheduled.reason;
    this.scheduleWrites?.inc({ outcome: scheduled.value });
  }

  /** The room's write, after its earlier ones (the room's next messages are published meanwhile). */
  private queueStore(entry: RoomLogEntry, seq: number, msgs: readonly JsMsg[]): Promise<void> {
    return this.run(this.writes, entry.room._id, () => this.store(entry, seq, msgs));
  }

  /** Writes a change that lists see (a deletion: removes the room), then acks its messages. */
  private async store(entry: RoomLogEntry, seq: number, msgs: readonly JsMsg[]): Promise<void> {
    const roomId = entry.room._id;
    if ((entry.listed || entry.deleted) && !(await this.writtenAlready(entry))) {
      try {
        if (entry.deleted) await this.remove([roomId]);
        else await this.write(entry.room);
      } catch (error) {
        this.retry(msgs, error, roomId);
        return;
      }
    }
    this.done(roomId, seq, msgs);
  }

  private async handle(msg: JsMsg): Promise<void> {
    let entry: RoomLogEntry;
    try {
      entry = this.log.entryOf(msg);
    } catch {
      this.logger.error({ subject: msg.subject, seq: msg.seq }, 'undecodable room log message terminated');
      msg.term('undecodable');
      return;
    }
    try {
      await this.announce(entry, msg.seq, msg);
    } catch (error) {
      this.retry([msg], error, entry.room._id);
      return;
    }
    void this.queueStore(entry, msg.seq, [msg]);
  }

  /** Hands messages back to JetStream for a later try (their events again are dropped by msg-id). */
  private retry(msgs: readonly JsMsg[], error: unknown, roomId: string): void {
    for (const msg of msgs) {
      const attempt = msg.info.redeliveryCount;
      const delay = retryDelayMs(attempt);
      this.logger.warn(
        { err: error, roomId, seq: msg.seq, attempt, retryInMs: delay },
        'projecting a room change failed; will retry',
      );
      msg.nak(delay);
    }
  }

  /**
   * Publishes the events not yet published, all at once: one write to the server and one wait for
   * their acks, where one after another cost a round trip each on the move's way to the pushes.
   * An event JetStream keeps refusing becomes a dead letter. After a partial failure the retry
   * starts at the first event not stored, and a later one that was is dropped as a duplicate: it
   * stays ahead in the stream, which no consumer minds (they go by room version and event id).
   */
  private async publish(events: readonly EventEnvelope[], seq: number, msg?: JsMsg): Promise<void> {
    const from = this.publishedOf.get(seq) ?? 0;
    const pending = events.slice(from);
    const results = await Promise.allSettled(pending.map((event) => this.jetstream.publish(event)));
    let failure: unknown;
    let stored = from;
    for (const [i, result] of results.entries()) {
      const event = pending[i] as EventEnvelope;
      if (result.status === 'fulfilled') {
        this.firstRefusedAt.delete(event.id);
      } else if (await this.buryIfDue(event, result.reason, msg)) {
        this.firstRefusedAt.delete(event.id);
      } else {
        failure ??= result.reason;
        continue;
      }
      if (failure === undefined) stored = from + i + 1;
    }
    this.publishedOf.set(seq, stored);
    if (failure !== undefined) throw failure;
  }

  /**
   * Makes the event a dead letter when the policy says its refusals are enough: the message's
   * deliveries count as its attempts, since the first refusal this replica saw.
   */
  private async buryIfDue(event: EventEnvelope, error: unknown, msg?: JsMsg): Promise<boolean> {
    if (!this.deadLetters.counts(error)) return false;
    const now = new Date();
    const first = this.firstRefusedAt.get(event.id) ?? now.getTime();
    this.firstRefusedAt.set(event.id, first);
    const refusals: Refusals = {
      attempts: msg?.info.redeliveryCount ?? 1,
      firstAt: new Date(first),
      lastAt: now,
      error: describeError(error),
    };
    if (!this.deadLetters.isDue(refusals)) return false;
    const source = { collection: Streams.roomLog.name, id: msg ? `${msg.subject}#${msg.seq}` : 'projector' };
    await this.deadLetters.bury(event, refusals, source, 'room');
    return true;
  }

  /**
   * Writes the room unless a newer version is there. A document the write had to create is
   * checked against the log: if the room is gone meanwhile (its tombstone or its purged subject),
   * a late write must not bring it back into the lists.
   */
  async write(room: RoomRecord): Promise<void> {
    await this.noting(room._id, room.version, async () => {
      const result = await this.repository.project(room);
      if (result !== 'inserted') return true;
      const last = await this.log.last(room._id);
      if (last && !last.deleted) return true;
      await this.remove([room._id]);
      return false;
    });
  }

  /**
   * Writes rooms just appended to the log, in one write where write() would take one each; each
   * document it created is checked against the log as write() checks one.
   */
  async writeNew(rooms: readonly RoomRecord[]): Promise<void> {
    if (rooms.length === 0) return;
    const inserted = this.repository.projectNew(rooms);
    const done = inserted.then(
      () => true,
      () => false,
    );
    for (const room of rooms) this.expect(room._id, room.version, done);
    const gone = await Promise.all(
      (await inserted).map(async (roomId) => {
        const last = await this.log.last(roomId);
        return last && !last.deleted ? [] : [roomId];
      }),
    );
    if (gone.flat().length > 0) await this.remove(gone.flat());
  }

  /** Removes deleted rooms' documents (lists and Play now no longer see them), in one write. */
  async remove(roomIds: readonly string[]): Promise<void> {
    const removed = this.repository.projectDeletedMany(roomIds);
    const done = removed.then(
      () => true,
      () => false,
    );
    for (const roomId of roomIds) this.expect(roomId, Infinity, done);
    await removed;
  }

  /**
   * Notes a write of the room at `version` (Infinity: its removal), begun or about to be, that
   * `done` tells the outcome of: this replica's consumer waits for it rather than writing the same
   * change. A note stands for a newer version only; a removal's stays.
   */
  expect(roomId: string, version: number, done: Promise<boolean>): void {
    const before = this.written.get(roomId);
    if (!before || (before.version !== Infinity && before.version < version)) {
      this.written.set(roomId, { version, done: done.catch(() => false) });
    }
  }

  private async noting(roomId: string, version: number, write: () => Promise<boolean>): Promise<void> {
    const done = write();
    this.expect(roomId, version, done);
    await done;
  }

  /** Whether a write of this replica, done or under way and successful, holds the entry's change. */
  private async writtenAlready(entry: RoomLogEntry): Promise<boolean> {
    const written = this.written.get(entry.room._id);
    if (!written) return false;
    const covers = written.version === Infinity || (!entry.deleted && written.version >= entry.room.version);
    return covers && (await written.done);
  }

  /** Acks a message whose events are published and whose room is written if lists see it. */
  private ack(msg: JsMsg): void {
    msg.ack();
    this.publishedOf.delete(msg.seq);
  }

  private done(roomId: string, seq: number, msgs: readonly JsMsg[]): void {
    for (const msg of msgs) this.ack(msg);
    this.publishedOf.delete(seq);
    const before = this.projected.get(roomId);
    if (!before || seq >= before.seq) this.projected.set(roomId, { seq });
  }

  /** Runs a task after the room's earlier ones in `chains` (one room's messages in order). */
  private run(chains: Map<string, Promise<void>>, roomId: string, task: () => Promise<void>): Promise<void> {
    const next = (chains.get(roomId) ?? Promise.resolve())
      .then(task)
      .catch((error) => this.logger.error({ err: error, roomId }, 'room projector task failed'));
    chains.set(roomId, next);
    void next.finally(() => {
      if (chains.get(roomId) === next) chains.delete(roomId);
    });
    return next;
  }

  /**
   * Purges projected rooms' older log messages: below both the projected message (the room's
   * newest state, which stays) and the consumer's ack floor (everything below it is
   * published and projected). A deleted room's tombstone stays for sweepClosed.
   */
  async purge(): Promise<void> {
    if (this.projected.size === 0) return;
    const { stream, durable } = Consumers.roomsProjector;
    try {
      const jsm = await this.jetstream.nc.jetstreamManager();
      const floor = (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq;
      for (const [roomId, { seq }] of [...this.projected]) {
        if (this.stopped) return;
        const below = Math.min(seq, floor + 1);
        if (below > 1) await this.log.purge(roomId, below);
        if (seq <= floor && this.projected.get(roomId)?.seq === seq) this.projected.delete(roomId);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'purging the room log failed; the next purge retries');
    }
  }

  /**
   * Purges the whole subject of each deleted room whose tombstone is older than the notice and
   * projected (below the ack floor). It reads the log, not this replica's memory, so tombstones
   * projected before a restart, or by a replica gone since, go too. `nowMs` is for tests.
   */
  async sweepClosed(nowMs = Date.now()): Promise<number> {
    const noticeMs = this.options.closedNoticeMs ?? CLOSED_NOTICE_MS;
    const { stream, durable } = Consumers.roomsProjector;
    let purged = 0;
    try {
      const jsm = await this.jetstream.nc.jetstreamManager();
      const floor = (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq;
      for (const { roomId, seq, atMs } of await this.log.closedRooms()) {
        if (this.stopped) break;
        if (seq > floor || nowMs - atMs < noticeMs) continue;
        await this.log.purge(roomId, seq + 1);
        purged += 1;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'purging closed rooms failed; the next sweep retries');
    }
    return purged;
  }
}
