import { z } from 'zod';
import { type RoomView, roomViewSchema } from './rooms';
import { countSchema } from './schema';

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
 * PUSH_STREAMS_PER_ADDRESS streams on that gateway replica (429): a place frees when one closes.
 */
export const PUSH_RETRY_AFTER_SECONDS = 5;

export const PUSH_MESSAGES = {
  tooManyStreams:
    'Too many live streams are open from your address. Close another tab or window and try again.',
} as const;
