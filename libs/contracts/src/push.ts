import { z } from 'zod';
import { personSchema } from './events';
import type { RoomView } from './rooms';

/**
 * Server-Sent Events the gateway pushes. The SSE `event:` field is the `type` below; `data:` is
 * the JSON of the room itself for `room` (on a room's stream the whole RoomView, on the room-list
 * stream its RoomSummary), and of `{ roomId, version, reason }` for `room-deleted`. The SSE `id:`
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
export type RoomSummary = Pick<
  RoomView,
  | '_id'
  | 'name'
  | 'roomNumber'
  | 'gameType'
  | 'createdBy'
  | 'duration'
  | 'hasPassCode'
  | 'players'
  | 'gameStarted'
  | 'gameOver'
  | 'version'
  | 'createdAt'
>;

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

/** A room change on the room-list stream. */
export interface RoomSummaryPush {
  type: 'room';
  room: RoomSummary;
}

/** The `data` of a `room-deleted` push; a reason the client does not get reads as 'deleted'. */
export const roomGonePushDataSchema = z.object({
  roomId: z.string(),
  version: z.number(),
  reason: z.string().catch('deleted'),
});
export type RoomGonePush = { type: 'room-deleted' } & z.infer<typeof roomGonePushDataSchema>;

/**
 * What the web app checks of a pushed room before it places it (the list stream's summary): the
 * id and version it keys its cache on, and the players it counts. The rest comes from our own
 * gateway as RoomSummary says and is kept as sent.
 */
export const pushedSummarySchema = z.looseObject({
  _id: z.string(),
  version: z.number(),
  players: z.array(personSchema),
});

/** A room's own stream also carries its game state, which the room screen reads. */
export const pushedRoomSchema = pushedSummarySchema.extend({ whosTurn: z.looseObject({}) });

/** What a room's stream sends. */
export type PushMessage = RoomPush | RoomGonePush;
/** What the room-list stream sends. */
export type ListPushMessage = RoomSummaryPush | RoomGonePush;

/** Seconds between SSE comments that keep idle connections open through proxies. */
export const PUSH_HEARTBEAT_SECONDS = 15;

/**
 * The Retry-After of a stream refused because its client address already holds
 * PUSH_STREAMS_PER_ADDRESS streams on that gateway replica (429): a place frees when one closes.
 */
export const PUSH_RETRY_AFTER_SECONDS = 5;

export const PUSH_MESSAGES = {
  tooManyStreams:
    'Too many live streams are open from your address. Close another tab or window and try again.',
} as const;
