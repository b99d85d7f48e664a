import { Streams } from '@oasis198/contracts';
import { AI_JOIN_AFTER_SECONDS } from '@oasis198/game-rules';
import {
  baseEnv,
  limitsBucketEnv,
  mongoEnv,
  publisherEnv,
  scheduleWriterEnv,
  timersStreamEnv,
} from '@oasis198/service-kit';
import { z } from 'zod';

export const roomsEnv = baseEnv.merge(mongoEnv).extend({
  /** Port of /health and /metrics (the local stack gives rooms 3103). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3103),
  /**
   * How often rooms deletes durable consumers that no service reads any more (RetiredConsumers in
   * contracts), besides at start-up: during a rolling upgrade, a timer of the earlier release may
   * create its consumer of room events again.
   */
  RETIRED_CONSUMERS_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Wrong passcodes one player may try on one room within PASSCODE_FAILURE_WINDOW_S (DECISIONS
   * "Fair play"); then every join of theirs on that room answers 429 until the window ends.
   * Counted in a NATS KV bucket that every rooms replica shares.
   */
  PASSCODE_MAX_FAILURES: z.coerce.number().int().positive().default(5),
  PASSCODE_FAILURE_WINDOW_S: z.coerce.number().int().positive().default(600),
  /**
   * Wrong passcodes on one room from all players together within PASSCODE_FAILURE_WINDOW_S; then
   * every join of that room answers 429 until the window ends, so guesses spread over many
   * accounts stay few (docs/adr/0016).
   */
  PASSCODE_MAX_FAILURES_PER_ROOM: z.coerce.number().int().positive().default(20),
  /** The limits bucket those counts live in, shared with the gateway. */
  ...limitsBucketEnv,
  /**
   * A room created with the AI option gets the AI as player 2 this long after it started waiting,
   * unless a person joins first (30 s; tests shorten it). Stored with each room, so the
   * game timer reads the time from the room and needs no setting of its own.
   */
  AI_JOIN_AFTER_S: z.coerce.number().int().min(1).max(600).default(AI_JOIN_AFTER_SECONDS),
  /**
   * Public reads (room lists, single rooms) one replica runs at once; the rest wait in line, and
   * one whose caller has given up by its turn is not read (ReadLine).
   */
  PUBLIC_READS_AT_ONCE: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * How long a closed room's tombstone stays in the room log: a GET of it answers 404 with the
   * reason it was closed, for a player whose live stream missed the push (docs/adr/0002).
   */
  ROOM_CLOSED_NOTICE_S: z.coerce.number().int().min(1).max(86_400).default(600),
  /** Dead letters of refused events, and the watch on the GAMES stream's room (service-kit outbox.ts). */
  ...publisherEnv,
  /**
   * Bytes the GAMES stream may hold (rooms keeps the stream's limits up to date at start-up).
   * When it is full, changes answer 503 until messages age out (14 days) or this is raised.
   */
  GAMES_STREAM_MAX_BYTES: z.coerce.number().int().positive().default(Streams.games.maxBytes),
  /** The largest event the GAMES stream accepts (NATS's max_payload, 1 MiB, is the ceiling). */
  GAMES_STREAM_MAX_MSG_SIZE: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(Streams.games.maxMsgSize),
  /**
   * Bytes the room log may hold (rooms keeps its limits up to date at start-up). Projected rooms'
   * older messages are purged; when it is full anyway, changes answer 503.
   */
  ROOMLOG_STREAM_MAX_BYTES: z.coerce.number().int().positive().default(Streams.roomLog.maxBytes),
  /** The largest room log message: a room and its change's events (max_payload, 1 MiB, is the ceiling). */
  ROOMLOG_STREAM_MAX_MSG_SIZE: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(Streams.roomLog.maxMsgSize),
  /** Each room change's deadlines are written as the room's schedule in TIMERS, which rooms keeps. */
  ...scheduleWriterEnv,
  ...timersStreamEnv,
});

export type RoomsConfig = z.infer<typeof roomsEnv>;
