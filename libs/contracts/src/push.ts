import type { RoomView } from './rooms';

/**
 * Server-Sent Events the gateway pushes. The SSE `event:` field is the `type` below; `data:` is
 * the JSON of the RoomView itself for `room`, and of `{ roomId, version, reason }` for
 * `room-deleted`. The SSE `id:` is the room version, so a client can ignore anything older than
 * what it has.
 */
export interface RoomPush {
  type: 'room';
  room: RoomView;
}

export interface RoomGonePush {
  type: 'room-deleted';
  roomId: string;
  version: number;
  reason: string;
}

export type PushMessage = RoomPush | RoomGonePush;

/** Seconds between SSE comments that keep idle connections open through proxies. */
export const PUSH_HEARTBEAT_SECONDS = 15;
