import { Streams, TimerSubjects } from '@oasis198/contracts';
import {
  DiscardPolicy,
  headers as natsHeaders,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import { LRUCache } from 'lru-cache';
import { isWrongRevision } from '../limits/versioned-store';
import { isNotFound } from '../nats/jetstream.service';
import { withJetStreamRetry } from '../nats/jetstream-retry';
import { encodeSchedule, fireAtMs, type RoomSchedule } from './schedule';

/** The room version a schedule (or a cancellation) was written for. */
export const VERSION_HEADER = 'Oasis-Room-Version';
/**
 * How long a cancellation (a room deleted, or left with no deadline) keeps the room's version,
 * so that a late, older snapshot cannot schedule it again. It then expires on its own.
 */
export const CANCELLED_TTL = '1h';

/** nats.js 2.29 predates these stream settings (nats-server 2.11 / 2.12); the server knows them. */
type TimerStreamConfig = Partial<StreamConfig> & { allow_msg_schedules: boolean; allow_msg_ttl: boolean };

const MINUTE_NS = 60 * 1e9;
/** Schedules are written with an expected last sequence; after this many lost races, the write fails (and is retried). */
const MAX_RACES = 5;
/** Rooms whose last written version this replica remembers (saves the read before most writes). */
const REMEMBERED_ROOMS = 100_000;

/**
 * Creates the TIMERS stream when missing, with `replicas` copies, and, with `maxBytes`, brings its
 * limits and replicas up to date:
 * rooms, which writes every room's schedule, keeps them (TIMERS_STREAM_MAX_BYTES); the game timer
 * only creates the stream if it starts first. Not service-kit's ensureStreams: a stream with
 * message schedules must discard OLD (the server refuses discard NEW with schedules), keeps one
 * message per subject (a room's schedule, its fired deadline) and uses work-queue retention (a
 * fired deadline goes once acked).
 */
export async function ensureTimerStream(
  jsm: JetStreamManager,
  maxBytes?: number,
  replicas = 1,
): Promise<void> {
  const spec = Streams.timers;
  const config: TimerStreamConfig = {
    name: spec.name,
    subjects: [...spec.subjects],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_bytes: maxBytes ?? spec.maxBytes,
    max_msg_size: spec.maxMsgSize,
    max_msgs_per_subject: spec.maxMsgsPerSubject,
    duplicate_window: 2 * MINUTE_NS,
    num_replicas: replicas,
    allow_msg_schedules: true,
    allow_msg_ttl: true,
  };
  let current: TimerStreamConfig | undefined;
  try {
    current = (await jsm.streams.info(spec.name)).config as unknown as TimerStreamConfig;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (!current) {
    try {
      await jsm.streams.add(config as unknown as StreamConfig);
    } catch (error) {
      // Another replica created it at the same moment.
      if (!/already in use/.test(String((error as Error).message))) throw error;
    }
    return;
  }
  if (maxBytes === undefined) return;
  if (
    current.max_bytes !== config.max_bytes ||
    current.max_msg_size !== config.max_msg_size ||
    current.max_msgs_per_subject !== config.max_msgs_per_subject ||
    current.num_replicas !== config.num_replicas ||
    !current.allow_msg_schedules ||
    !current.allow_msg_ttl
  ) {
    await jsm.streams.update(spec.name, { ...current, ...config } as unknown as StreamConfig);
  }
}

export type WriteOutcome = 'scheduled' | 'cancelled' | 'older';

/**
 * Writes room schedules. Each room has one subject, so a write replaces the room's schedule; it
 * is guarded by the subject's last sequence (Nats-Expected-Last-Subject-Sequence), so a snapshot
 * older than what is there never replaces it, even with two replicas writing at once.
 */
export class ScheduleStore {
  private readonly js: JetStreamClient;
  /** Per room: the sequence and version this replica last wrote or read (a hint; the server decides). */
  private readonly known = new LRUCache<string, { seq: number; version: number }>({ max: REMEMBERED_ROOMS });

  constructor(
    nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly leadMs: number,
  ) {
    this.js = nc.jetstream();
  }

  /**
   * Makes `schedule` the room's schedule unless the room already has one of this version or a
   * newer one (or a newer cancellation). No deadlines: cancels the room's schedule. `first`: the
   * schedule is of the room's first version, so nothing but a repeat of this very write can be on
   * its subject; the write expects it empty, and reads what is there only if that is refused (a
   * new room's schedule then costs one round trip, not two).
   */
  async write(schedule: RoomSchedule, { first = false }: { first?: boolean } = {}): Promise<WriteOutcome> {
    const { roomId, version } = schedule;
    const subject = TimerSubjects.schedule(roomId);
    const known = this.known.get(roomId);
    if (known && known.version >= version) return 'older';
    let expected = known?.seq ?? (first ? 0 : undefined);
    for (let race = 0; race < MAX_RACES; race++) {
      if (expected === undefined) {
        const last = await this.last(subject);
        if (last && last.version >= version) {
          this.known.set(roomId, last);
          return 'older';
        }
        expected = last?.seq ?? 0;
      }
      try {
        const seq = await this.publish(schedule, expected);
        this.known.set(roomId, { seq, version });
        return schedule.deadlines.length ? 'scheduled' : 'cancelled';
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
        expected = undefined; // Someone wrote in between: read what is there now.
      }
    }
    throw new Error(`the schedule of room ${roomId} kept changing; will retry`);
  }

  /**
   * Schedules the rest of a fired schedule, unless the room's subject holds anything: the fired
   * schedule was removed when it fired, so whatever is there now is newer.
   */
  async writeRest(rest: RoomSchedule): Promise<boolean> {
    try {
      const seq = await this.publish(rest, 0);
      this.known.set(rest.roomId, { seq, version: rest.version });
      return true;
    } catch (error) {
      if (isWrongRevision(error)) return false;
      throw error;
    }
  }

  private async publish(schedule: RoomSchedule, expectedSeq: number): Promise<number> {
    const h = natsHeaders();
    h.set(VERSION_HEADER, String(schedule.version));
    const at = fireAtMs(schedule, this.leadMs);
    if (at === null) {
      h.set('Nats-TTL', CANCELLED_TTL);
    } else {
      h.set('Nats-Schedule', `@at ${new Date(at).toISOString()}`);
      h.set('Nats-Schedule-Target', TimerSubjects.fired(schedule.roomId));
    }
    // No Nats-Msg-Id (a fired schedule could carry it to its target in this stream): a retried
    // write that was stored already loses its race, and write() then finds its own version there.
    const data = encodeSchedule(schedule);
    const ack = await withJetStreamRetry(() =>
      this.js.publish(TimerSubjects.schedule(schedule.roomId), data, {
        headers: h,
        expect: { lastSubjectSequence: expectedSeq },
      }),
    );
    return ack.seq;
  }

  private async last(subject: string): Promise<{ seq: number; version: number } | null> {
    try {
      const msg = await withJetStreamRetry(() =>
        this.jsm.streams.getMessage(Streams.timers.name, { last_by_subj: subject }),
      );
      const version = Number(msg.header.get(VERSION_HEADER));
      return { seq: msg.seq, version: Number.isSafeInteger(version) ? version : -1 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }
}
