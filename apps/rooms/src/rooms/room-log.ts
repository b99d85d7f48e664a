import {
  AppError,
  type EventEnvelope,
  EventTypes,
  RoomLogHeaders,
  RoomLogSubjects,
  type RoomSnapshot,
  Streams,
} from '@oasis198/contracts';
import { isNotFound, isOutOfSpace, STREAM_FULL_MESSAGE, withJetStreamRetry } from '@oasis198/service-kit';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DeliverPolicy, headers, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import type { RoomRecord } from './room.schema';

/**
 * One message of the room log: a room change as committed. The room as it is after the change,
 * the events the change causes (published to GAMES by the projector, in this order), whether the
 * room is gone with it, and whether lists and queries see the change (then MongoDB gets it at once
 * instead of coalesced).
 */
export interface RoomLogEntry {
  room: RoomRecord;
  events: EventEnvelope[];
  deleted: boolean;
  listed: boolean;
  /**
   * An arena room refused before it opened, its first and last message (a tombstone): the players
   * who were busy. A request for the room that comes with or after it answers the same.
   */
  refused?: string[];
}

/** A room as its last log message has it: what a read needs (not the change's events). */
export interface LoggedRoom {
  room: RoomRecord;
  /** The room is gone with this message (its tombstone). */
  deleted: boolean;
  /** The message's sequence: the expected last sequence of the room's next change. */
  seq: number;
  /** Why a deleted room was closed (its room.deleted event's reason). */
  reason?: string;
  /** An arena room refused before it opened: the players who were busy (RoomLogEntry.refused). */
  refused?: string[];
}

/** A deleted room's last message, as the sweep of closed rooms finds it. */
export interface ClosedRoom {
  roomId: string;
  seq: number;
  /** When it was logged (ms since the epoch). */
  atMs: number;
}

/**
 * Entries this process appended and its projector has not taken yet. With one rooms replica the
 * projector takes every entry it appended, and with N replicas about one in N; a few seconds of
 * moves at 1,000 games fit.
 */
const APPENDED_KEPT = 4096;

/** The room's Date fields, which travel as ISO text in the log. */
const DATES = ['waitingSince', 'gameStartedAt', 'createdAt', 'updatedAt'] as const;

/**
 * A room.created or room.updated event as logged: its data (the room as clients see it) is not
 * stored, since it is the entry's room through toRoomView at `serverNow`: a replica of the earlier
 * release rebuilds it on reading, this one needs it not (decodeEntry). The log then carries the
 * room once, not twice (docs/adr/0006-room-log-is-the-commit-point.md).
 */
type LoggedSnapshot = Omit<EventEnvelope, 'data'> & { serverNow: number };

/** An event whose data is the entry's room as a view (not so for a deleted room's last snapshot). */
const isSnapshotOf = (
  { room, deleted }: Omit<RoomLogEntry, 'events'>,
  event: EventEnvelope,
): event is EventEnvelope<'room.updated'> =>
  (event.type === EventTypes.roomUpdated || event.type === EventTypes.roomCreated) &&
  !deleted &&
  (event.data as RoomSnapshot).room.version === room.version;

/**
 * An entry as stored. Its events go under `logged`, a key the earlier code does not know: a replica
 * of it, during a rolling upgrade, fails on such an entry and hands it back (nak) for a newer
 * replica, rather than publishing snapshots without their room. Entries appended before this
 * encoding keep `events`, and read as they are.
 */
interface StoredEntry extends Omit<RoomLogEntry, 'events'> {
  logged?: (EventEnvelope | LoggedSnapshot)[];
  events?: EventEnvelope[];
}

export function encodeEntry({ events, ...entry }: RoomLogEntry): Uint8Array {
  const logged = events.map((event): EventEnvelope | LoggedSnapshot => {
    if (!isSnapshotOf(entry, event)) return event;
    const { data, ...rest } = event;
    return { ...rest, serverNow: data.room.serverNow };
  });
  const stored: StoredEntry = { ...entry, logged };
  return new TextEncoder().encode(JSON.stringify(stored));
}

/** A stored entry as parsed, its room's dates revived; its snapshot events are not rebuilt. */
function decodeStored(data: Uint8Array): StoredEntry {
  const stored = JSON.parse(new TextDecoder().decode(data)) as StoredEntry;
  const room = stored.room as unknown as Record<string, unknown>;
  for (const field of DATES) {
    const value = room[field];
    if (typeof value === 'string') room[field] = new Date(value);
  }
  return stored;
}

/**
 * A stored entry with the events it carries, its snapshots (room.created, room.updated, whole or
 * as references) left out: they show the entry's room, which the projector reads as it is, and
 * nothing publishes them (room-events.ts).
 */
export function decodeEntry(data: Uint8Array): RoomLogEntry {
  const { logged, events, ...entry } = decodeStored(data);
  return {
    ...entry,
    events: (logged ?? events ?? []).filter(
      (event): event is EventEnvelope =>
        event.type !== EventTypes.roomUpdated && event.type !== EventTypes.roomCreated,
    ),
  };
}

/** Why the room of a deleted entry was closed (its room.deleted event says); else 'deleted'. */
function closedReasonOf(events: readonly (EventEnvelope | LoggedSnapshot)[]): string {
  const gone = events.find((event): event is EventEnvelope => event.type === EventTypes.roomDeleted);
  const reason = (gone?.data as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : 'deleted';
}

/** Last messages the sweep of closed rooms reads at once. */
const SWEEP_BATCH = 1000;

/** The room id of a log subject (roomlog.<roomId>). */
export const roomIdOf = (subject: string): string => subject.slice(subject.indexOf('.') + 1);

/**
 * JetStream's "wrong last sequence": another change of the room was appended first. A single
 * server answers err_code 10071; a replicated stream on a cluster answers 10164.
 */
export function isLostRace(error: unknown): boolean {
  const code = (error as { api_error?: { err_code?: number } } | null)?.api_error?.err_code;
  return code === 10071 || code === 10164;
}

/**
 * The room log in JetStream (Streams.roomLog): appends guarded by the room subject's last
 * sequence, reads of a room's last message, and purges of what is projected.
 */
export class RoomLog {
  /** Entries appended here, by sequence, with their encoded size (see entryOf). */
  private readonly appended = new LRUCache<number, { entry: RoomLogEntry; bytes: number }>({
    max: APPENDED_KEPT,
  });

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  /**
   * A log message as an entry. One this process appended is handed over as it was appended (once),
   * so the projector decodes nothing: decoding was about 5 % of the rooms service's CPU at 300 games
   * (docs/adr/0006-room-log-is-the-commit-point.md). The room and the encoded size must match too, so a sequence
   * reused by a recreated stream is decoded like any other message.
   */
  entryOf(msg: Pick<JsMsg, 'seq' | 'subject' | 'data'>): RoomLogEntry {
    const kept = this.appended.get(msg.seq);
    if (kept) this.appended.delete(msg.seq);
    if (kept && kept.bytes === msg.data.length && kept.entry.room._id === roomIdOf(msg.subject)) {
      return kept.entry;
    }
    return decodeEntry(msg.data);
  }

  /**
   * Appends a change if the room's subject is still at `expectedSeq` (0: no message yet); the new
   * sequence, or null when another change came first (the caller reloads and decides again). A
   * full log refuses: 503, and the change is not made. Retried through a leader election with one
   * Nats-Msg-Id: an attempt stored although its answer was lost makes the next one a duplicate
   * (answered with its sequence), never a lost race nor a second commit.
   */
  async append(entry: RoomLogEntry, expectedSeq: number): Promise<number | null> {
    const data = encodeEntry(entry);
    const msgID = randomUUID();
    try {
      // A tombstone says so in a header: the sweep of closed rooms reads headers only.
      const closed = entry.deleted ? headers() : undefined;
      closed?.set(RoomLogHeaders.closed, closedReasonOf(entry.events));
      const ack = await withJetStreamRetry(() =>
        this.js.publish(RoomLogSubjects.room(entry.room._id), data, {
          msgID,
          expect: { lastSubjectSequence: expectedSeq, streamName: Streams.roomLog.name },
          ...(closed ? { headers: closed } : {}),
        }),
      );
      this.appended.set(ack.seq, { entry, bytes: data.length });
      return ack.seq;
    } catch (error) {
      if (isLostRace(error)) return null;
      if (isOutOfSpace(error)) throw new AppError('UNAVAILABLE', STREAM_FULL_MESSAGE);
      throw error;
    }
  }

  /**
   * The room as its last message has it; null when its subject has none (a room from before the
   * log, or purged). Reads need no events, so none are decoded.
   */
  async last(roomId: string): Promise<LoggedRoom | null> {
    try {
      const msg = await withJetStreamRetry(() =>
        this.jsm.streams.getMessage(Streams.roomLog.name, { last_by_subj: RoomLogSubjects.room(roomId) }),
      );
      const stored = decodeStored(msg.data);
      const { room, deleted, refused } = stored;
      return {
        room,
        deleted,
        seq: msg.seq,
        ...(deleted ? { reason: closedReasonOf(stored.logged ?? stored.events ?? []) } : {}),
        ...(refused ? { refused } : {}),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * The deleted rooms whose tombstone is still their subject's last message: read from the log's
   * last messages, headers only, so it holds after a restart or with another replica gone.
   */
  async closedRooms(): Promise<ClosedRoom[]> {
    const consumer = await this.js.consumers.get(Streams.roomLog.name, {
      filterSubjects: [...Streams.roomLog.subjects],
      deliver_policy: DeliverPolicy.LastPerSubject,
      headers_only: true,
      // Rooms may not delete ROOMLOG's consumers (the projector's is one): the server drops this one.
      inactive_threshold: 10_000,
    });
    const found: ClosedRoom[] = [];
    for (;;) {
      let pending = 0;
      let read = 0;
      for await (const msg of await consumer.fetch({ max_messages: SWEEP_BATCH, expires: 2000 })) {
        read += 1;
        pending = msg.info.pending;
        if (msg.headers?.has(RoomLogHeaders.closed)) {
          const atMs = Math.floor(msg.info.timestampNanos / 1e6);
          found.push({ roomId: roomIdOf(msg.subject), seq: msg.seq, atMs });
        }
      }
      if (read === 0 || pending === 0) return found;
    }
  }

  /** Removes the room's messages below `belowSeq` (the messages from it on stay). */
  async purge(roomId: string, belowSeq: number): Promise<void> {
    await this.jsm.streams.purge(Streams.roomLog.name, {
      filter: RoomLogSubjects.room(roomId),
      seq: belowSeq,
    });
  }
}
