import {
  type EventEnvelope,
  readRoomPushMeta,
  type RoomPushMeta,
  RoomPushSubjects,
} from '@oasis198/contracts';
import {
  AckPolicy,
  DiscardPolicy,
  JSONCodec,
  RetentionPolicy,
  type NatsConnection,
  type StreamConfig,
  type StreamState,
} from 'nats';
import { uniqueName } from './helpers';

/** JetStream's error code for a publish refused because the stream has no room (discard NEW). */
export const STREAM_FULL_ERR_CODE = 10077;

export interface FilledStream {
  /** The stream's configuration before it was filled: update the stream with it to make room again. */
  config: StreamConfig;
  /** The stream's state once it refused a message. */
  full: StreamState;
  /** The refusal of the publish that did not fit. */
  refusal: unknown;
}

/**
 * Fills a stream as other traffic would: lowers its max_bytes (discard NEW) to what it holds plus
 * `headroomBytes`, then publishes 1 KiB messages on `subject` until the server refuses one for
 * lack of room. An interest stream stores only what a consumer takes, so there a consumer of
 * `subject` that never acks (a stopped reader) comes first. Any other failure, or no refusal
 * after 1,000 messages, throws.
 */
export async function fillStream(
  nc: NatsConnection,
  stream: string,
  subject: string,
  headroomBytes = 32 * 1024,
): Promise<FilledStream> {
  const jsm = await nc.jetstreamManager();
  const { config, state } = await jsm.streams.info(stream);
  if (config.retention === RetentionPolicy.Interest) {
    await jsm.consumers.add(stream, {
      durable_name: uniqueName('stopped-reader'),
      ack_policy: AckPolicy.Explicit,
      filter_subject: subject,
    });
  }
  await jsm.streams.update(stream, {
    ...config,
    max_bytes: state.bytes + headroomBytes,
    discard: DiscardPolicy.New,
  });
  const js = nc.jetstream();
  for (let i = 0; i < 1000; i++) {
    try {
      await js.publish(subject, new Uint8Array(1024), { msgID: uniqueName('filler') });
    } catch (refusal) {
      const code = (refusal as { api_error?: { err_code?: number } }).api_error?.err_code;
      if (code !== STREAM_FULL_ERR_CODE) throw refusal;
      return { config, full: (await jsm.streams.info(stream)).state, refusal };
    }
  }
  throw new Error(`the stream ${stream} never filled`);
}

/**
 * Records the events a stream stores from now on, through a consumer of its own (an interest
 * stream stores an event only for the consumers that exist when it is published, and drops it
 * once they have acked it, so reading the stream afterwards finds nothing). `events()` returns
 * every event recorded so far, in stream order.
 */
export async function recordEvents(
  nc: NatsConnection,
  stream: string,
): Promise<{ events: () => Promise<EventEnvelope[]> }> {
  const jsm = await nc.jetstreamManager();
  const durable = uniqueName('recorder');
  await jsm.consumers.add(stream, { durable_name: durable, ack_policy: AckPolicy.None });
  const consumer = await nc.jetstream().consumers.get(stream, durable);
  const codec = JSONCodec<EventEnvelope>();
  const recorded: EventEnvelope[] = [];
  return {
    events: async () => {
      let pending = (await consumer.info()).num_pending;
      while (pending > 0) {
        const batch = await consumer.fetch({ max_messages: Math.min(pending, 10_000), expires: 2000 });
        for await (const msg of batch) {
          recorded.push(codec.decode(msg.data));
          pending = msg.info.pending;
          if (pending === 0) break;
        }
      }
      return [...recorded];
    },
  };
}

/** A room push as a gateway gets it: what its headers say, and its body parsed. */
export interface RecordedPush {
  roomId: string;
  meta: RoomPushMeta;
  /** The room with its moves from movesFrom on (`room`), or the deletion (`room-deleted`). */
  data: Record<string, unknown>;
}

/**
 * Records the live pushes rooms sends from now on (core NATS, RoomPushSubjects), as every gateway
 * hears them. `pushes(roomId)` returns one room's, in the order they came; a push whose headers
 * are not a push's fails the test that reads them.
 */
export function recordPushes(nc: NatsConnection): { pushes: (roomId: string) => RecordedPush[] } {
  const recorded: RecordedPush[] = [];
  const malformed: string[] = [];
  const sub = nc.subscribe(RoomPushSubjects.every);
  void (async () => {
    for await (const msg of sub) {
      const meta = readRoomPushMeta((name) => msg.headers?.get(name));
      const roomId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
      if (!meta) malformed.push(msg.subject);
      else recorded.push({ roomId, meta, data: JSON.parse(msg.string()) as Record<string, unknown> });
    }
  })();
  return {
    pushes: (roomId) => {
      if (malformed.length) throw new Error(`room pushes without their headers: ${malformed.join(', ')}`);
      return recorded.filter((push) => push.roomId === roomId);
    },
  };
}
