import { z } from 'zod';
import { type RoomView, roomViewSchema } from './rooms';
import { countSchema } from './schema';

/**
 * Server-Sent Events the gateway pushes. The SSE `event:` field is the `type` below; `data:` is
 * the JSON of the room itself for `room` (on a room's stream the whole RoomView, on the room-list
 * stream its RoomSummary), of the room with only its new moves for `room-moves` (a room's stream,
 * after its first frame), and of `{ roomId, version, reason }` for `room-deleted`. The SSE `id:`
 * is the room version, so a client can ignore anything older than what it has.
 */
export interface RoomPush {
  type: 'room';
  room: RoomView;
}

/**
 * What the room list shows of a room: no game state (whosTurn and its move list stay on the
 * room's own stream), so the list stream costs the same on the 1st move as on the 200th.
 */
export const roomSummarySchema = roomViewSchema
  .pick({
    _id: true,
    name: true,
    roomNumber: true,
    gameType: true,
    createdBy: true,
    duration: true,
    hasPassCode: true,
    players: true,
    gameStarted: true,
    gameOver: true,
    version: true,
    createdAt: true,
  })
  .meta({ description: 'A room as the room list shows it: no game state.' });
export type RoomSummary = z.infer<typeof roomSummarySchema>;

export function toRoomSummary(room: RoomView): RoomSummary {
  return {
    _id: room._id,
    name: room.name,
    roomNumber: room.roomNumber,
    gameType: room.gameType,
    createdBy: room.createdBy,
    duration: room.duration,
    hasPassCode: room.hasPassCode,
    players: room.players,
    gameStarted: room.gameStarted,
    gameOver: room.gameOver,
    version: room.version,
    createdAt: room.createdAt,
  };
}

/**
 * A change of a room within the game its stream last sent: the room with only
 * the moves from `movesFrom` on, where `movesFrom` is how many moves the stream's previous frame
 * had. A frame's size then stays the same on the 1st move and the 200th; a new game, or the first
 * frame of a stream, is a whole `room`.
 */
export const roomMovesPushDataSchema = roomViewSchema
  .extend({
    movesFrom: countSchema.meta({
      description:
        'The index of the first move in whosTurn.moves: the moves before it are those the client has.',
    }),
  })
  .meta({ description: "A room with only the moves its stream's previous frame did not have." });
export type RoomMovesPushData = z.infer<typeof roomMovesPushDataSchema>;

/** The room with the moves from `movesFrom` on. */
export function toRoomMoves(room: RoomView, movesFrom: number): RoomMovesPushData {
  return { ...room, whosTurn: { ...room.whosTurn, moves: room.whosTurn.moves.slice(movesFrom) }, movesFrom };
}

/**
 * The whole room a `room-moves` push makes of the room it continues; null when it does not
 * continue it (another room or game, or moves the client does not have): then the client reads
 * the room again.
 */
export function withNewMoves(base: RoomView, push: RoomMovesPushData): RoomView | null {
  const { movesFrom, ...room } = push;
  const moves = base.whosTurn.moves;
  if (
    base._id !== room._id ||
    base.whosTurn.gameNumber !== room.whosTurn.gameNumber ||
    moves.length < movesFrom
  ) {
    return null;
  }
  return {
    ...room,
    whosTurn: { ...room.whosTurn, moves: [...moves.slice(0, movesFrom), ...room.whosTurn.moves] },
  };
}

/**
 * Core NATS, outside every stream: rooms publishes each committed room change here right after
 * appending it to the room log, and every gateway replica forwards it to the room's streams. Live
 * pushes are not facts that must not be lost: one lost (a rooms replica dying between its append
 * and this publish) costs a watcher one frame, which the room's next change or a re-read (the web
 * app's 5 s poll, a reconnect) makes good; the change itself is in the log.
 */
export const RoomPushSubjects = {
  room: (roomId: string) => `push.room.${roomId}`,
  /** Every room's pushes (the gateways' subscription). */
  every: 'push.room.*',
} as const;

/**
 * The headers of a room push, which say all the gateway needs to route it, so that it forwards
 * the body as an SSE frame's data without parsing it. The body is the frame's data: for `room`,
 * the room with its moves from `movesFrom` on (RoomMovesPushData; `movesFrom` 0 is the whole
 * room), for `room-deleted`, RoomGonePush's data.
 */
export const ROOM_PUSH_HEADERS = {
  type: 'Oasis-Push',
  version: 'Oasis-Room-Version',
  gameNumber: 'Oasis-Game-Number',
  movesFrom: 'Oasis-Moves-From',
  moves: 'Oasis-Moves',
} as const;

const headerCount = z.coerce.number().pipe(countSchema);

/** What a room push's headers say: the change's type and version and, for `room`, which moves its body holds. */
export const roomPushMetaSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('room'),
    version: headerCount,
    /** The game the body's moves belong to. */
    gameNumber: headerCount,
    /** The index of the body's first move: the moves before it are in the room's previous version. */
    movesFrom: headerCount,
    /** How many moves the game has with this change. */
    moves: headerCount,
  }),
  z.object({ type: z.literal('room-deleted'), version: headerCount }),
]);
export type RoomPushMeta = z.infer<typeof roomPushMetaSchema>;

/** A room push's headers, by name (ROOM_PUSH_HEADERS), for the publisher to set. */
export function roomPushHeaders(meta: RoomPushMeta): Record<string, string> {
  const headers: Record<string, string> = {
    [ROOM_PUSH_HEADERS.type]: meta.type,
    [ROOM_PUSH_HEADERS.version]: String(meta.version),
  };
  if (meta.type === 'room') {
    headers[ROOM_PUSH_HEADERS.gameNumber] = String(meta.gameNumber);
    headers[ROOM_PUSH_HEADERS.movesFrom] = String(meta.movesFrom);
    headers[ROOM_PUSH_HEADERS.moves] = String(meta.moves);
  }
  return headers;
}

/**
 * What a room push's headers say (`header` reads one by name; a missing one may read as '');
 * null when they are not a push's.
 */
export function readRoomPushMeta(header: (name: string) => string | undefined): RoomPushMeta | null {
  const read = (name: string) => header(name) || undefined;
  const parsed = roomPushMetaSchema.safeParse({
    type: read(ROOM_PUSH_HEADERS.type),
    version: read(ROOM_PUSH_HEADERS.version),
    gameNumber: read(ROOM_PUSH_HEADERS.gameNumber),
    movesFrom: read(ROOM_PUSH_HEADERS.movesFrom),
    moves: read(ROOM_PUSH_HEADERS.moves),
  });
  return parsed.success ? parsed.data : null;
}

/** A room change on the room-list stream. */
export interface RoomSummaryPush {
  type: 'room';
  room: RoomSummary;
}

/** The `data` of a `room-deleted` push; a reason the client does not get reads as 'deleted'. */
export const roomGonePushDataSchema = z.object({
  roomId: z.string(),
  version: countSchema.meta({ description: "The room's last version." }),
  reason: z
    .string()
    .catch('deleted')
    .meta({ description: 'Why: deleted, left, empty, waiting-expired, post-game-expired or abandoned.' }),
});
export type RoomGonePush = { type: 'room-deleted' } & z.infer<typeof roomGonePushDataSchema>;

/** What a room's stream sends. */
export type PushMessage = RoomPush | RoomGonePush;
/** What the room-list stream sends. */
export type ListPushMessage = RoomSummaryPush | RoomGonePush;

/** Seconds between SSE comments that keep idle connections open through proxies. */
export const PUSH_HEARTBEAT_SECONDS = 15;

/**
 * The Retry-After of a stream refused because its client address already holds
 * PUSH_STREAMS_PER_ADDRESS streams on that gateway replica (429), or the replica holds
 * PUSH_STREAMS_PER_REPLICA (503): a place frees when one closes.
 */
export const PUSH_RETRY_AFTER_SECONDS = 5;

export const PUSH_MESSAGES = {
  tooManyStreams:
    'Too many live streams are open from your address. Close another tab or window and try again.',
  replicaFull: 'Live updates are busy right now. The page keeps refreshing on its own meanwhile.',
} as const;
