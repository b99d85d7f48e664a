import { z } from 'zod';
import type { EditRoomResponse } from './rooms';

/**
 * The room socket: a player's room edits (moves, readies, joins, leaves) over one WebSocket
 * instead of an HTTP request each. Each request is `PATCH /api/rooms/:id/edit` in a frame, judged
 * by the same rules, limits and answers; the HTTP call stays, and clients fall back to it
 * whenever the socket is not open. Pushes stay on the room's event stream.
 */
export const ROOM_SOCKET_PATH = '/api/rooms/socket';

/** The subprotocol a client asks for; the server answers with it. */
export const ROOM_SOCKET_PROTOCOL = 'oasis198.v1';

/**
 * The access token travels as a second subprotocol, `bearer.<token>`: a browser's WebSocket cannot
 * send an Authorization header, and a token in the URL would end up in access logs. A JWT's
 * characters are all allowed in a subprotocol.
 */
export const ROOM_SOCKET_TOKEN_PREFIX = 'bearer.';

/** Requests one socket may have unanswered at once; more are answered 429 unread. */
export const ROOM_SOCKET_MAX_IN_FLIGHT = 4;

/** Close codes of the room socket beyond RFC 6455's: the token is no longer valid (log in again). */
export const ROOM_SOCKET_CLOSE = { invalidToken: 4401, goingAway: 1001 } as const;

/** A client's frame: one room edit, with an id of its choosing that its answer carries. */
export const roomSocketRequestSchema = z.strictObject({
  id: z.int({ error: 'id must be a whole number.' }).min(0, 'id must be a whole number.'),
  roomId: z.string({ error: 'roomId must be a room id.' }).min(1, 'roomId must be a room id.').max(64),
  body: z.unknown(),
});
export type RoomSocketRequest = z.infer<typeof roomSocketRequestSchema>;

/** The answer to a request: its id, and the HTTP status and body that PATCH .../edit would have answered. */
export type RoomSocketAnswer = RoomSocketSuccess | RoomSocketRefusal;
export type RoomSocketSuccess = { id: number; status: 200; body: EditRoomResponse };
export type RoomSocketRefusal = {
  /** null when the frame could not be read far enough to find its id. */
  id: number | null;
  status: number;
  body: { message: string; code: string; details?: Record<string, string> };
  /** With a 429 or 503: seconds before trying again (HTTP's Retry-After). */
  retryAfterS?: number;
};

/** Whether an answer is the edit's success (its status alone does not narrow the type). */
export const isRoomSocketSuccess = (answer: RoomSocketAnswer): answer is RoomSocketSuccess =>
  answer.status === 200;
