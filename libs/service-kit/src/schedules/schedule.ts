import { type RoomSchedule, roomScheduleSchema, type RoomView, Streams } from '@oasis198/contracts';
import { z } from 'zod';
import { deriveDeadlines } from './deadlines';

export type { RoomSchedule };

/** The settings of every service that writes room schedules (rooms, and the game timer's rests). */
export const scheduleWriterEnv = {
  /**
   * How long before a deadline the server is asked to fire it. Its scheduler runs at most every
   * 250 ms, so a schedule fires up to that late; the timer takes it early and holds it, unacked,
   * until the exact time.
   */
  TIMER_SCHEDULE_LEAD_MS: z.coerce.number().int().min(0).max(5000).default(500),
};

/**
 * The TIMERS stream's max_bytes, kept up to date by rooms. It holds a schedule per room with a
 * pending deadline, about 0.5 KiB each; a stream with schedules must discard OLD, so it is sized
 * far above what the rooms ever need.
 */
export const timersStreamEnv = {
  TIMERS_STREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(Streams.timers.maxBytes),
};

/** A room snapshot's schedule; no deadlines means the room's schedule is cancelled. */
export function scheduleOf(room: RoomView): RoomSchedule {
  return {
    roomId: room._id,
    version: room.version,
    deadlines: deriveDeadlines(room).map(({ dueAt, ...entry }) => ({
      kind: entry.kind,
      dueAtMs: dueAt.getTime(),
      gameNumber: entry.gameNumber,
      moveIndex: entry.moveIndex,
    })),
  };
}

/**
 * When the server is to fire the schedule: `leadMs` before its first deadline. The server's
 * scheduler runs at most every 250 ms (nats-server's MsgScheduling), so a schedule fires up to
 * 250 ms after its time; firing early and waiting for the exact time here (planFired) makes the
 * deadline leave on time. Null when there is nothing to schedule.
 */
export function fireAtMs(schedule: RoomSchedule, leadMs: number): number | null {
  const first = schedule.deadlines[0];
  return first ? first.dueAtMs - leadMs : null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeSchedule(schedule: RoomSchedule): Uint8Array {
  return encoder.encode(JSON.stringify(schedule));
}

/** A schedule from a message body; null for anything that is not one (the message is dropped). */
export function decodeSchedule(data: Uint8Array): RoomSchedule | null {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
  const parsed = roomScheduleSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
