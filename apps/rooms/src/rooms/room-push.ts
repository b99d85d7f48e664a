import { type RoomPushMeta, RoomPushSubjects, type RoomView, toRoomMoves } from '@oasis198/contracts';
import type { RoomRecord } from './room.schema';
import type { Transition } from './room-transitions';

/** One live push of a room change: its subject, what its headers say, and its body (the frame's data). */
export interface RoomPush {
  subject: string;
  meta: RoomPushMeta;
  body: string;
}

/**
 * The live pushes of a committed change (RoomPushSubjects): the room as the change leaves it
 * (`view`; null when the room goes without a last state to show), holding only the moves its
 * previous version did not have, or all of them for a new room or a new game; then, when the room
 * goes with the change, its deletion. A move's push then stays the same size on the 1st move and
 * the 200th, and the gateway forwards it without parsing it.
 */
export function roomPushes(prev: RoomRecord | null, change: Transition, view: RoomView | null): RoomPush[] {
  const subject = RoomPushSubjects.room(change.next._id);
  const pushes: RoomPush[] = [];
  if (view) {
    const { gameNumber, moves } = view.whosTurn;
    const before = prev?.whosTurn;
    const movesFrom = before?.gameNumber === gameNumber ? Math.min(before.moves.length, moves.length) : 0;
    pushes.push({
      subject,
      meta: { type: 'room', version: view.version, gameNumber, movesFrom, moves: moves.length },
      body: JSON.stringify(toRoomMoves(view, movesFrom)),
    });
  }
  if (change.deleted) {
    const { version, reason } = change.deleted;
    pushes.push({
      subject,
      meta: { type: 'room-deleted', version },
      body: JSON.stringify({ roomId: change.next._id, version, reason }),
    });
  }
  return pushes;
}
