import type { Person, RoomView } from '@oasis198/contracts';
import { oasisKeyOf, roomLabel, type OasisCounts, type Seat } from '@oasis198/game-rules';
import { T } from '../../texts';

/** players[0] is player 1, players[1] player 2. */
export function seatOf(room: RoomView, userId: string | undefined): Seat | null {
  if (!userId) return null;
  const index = room.players.findIndex((p) => p.id === userId);
  return index === 0 ? 'player1' : index === 1 ? 'player2' : null;
}

export function playerAt(room: RoomView, seat: Seat): Person | undefined {
  return room.players[seat === 'player1' ? 0 : 1];
}

/**
 * How a seat is named on this screen: from a player's point of view 'You' and 'Opponent' (or
 * 'Empty Spot'); spectators see both players' names.
 */
export function seatName(room: RoomView, seat: Seat, mySeat: Seat | null): string {
  const person = playerAt(room, seat);
  if (mySeat === null) return person?.name ?? T.emptySpot;
  if (seat === mySeat) return T.you;
  return person ? T.opponent : T.emptySpot;
}

export function countsOf(room: RoomView, seat: Seat): OasisCounts | undefined {
  return room.whosTurn.helpOasis?.[oasisKeyOf(seat)];
}

/**
 * SPEC's "{room name}" in the exit confirmation: the short label the whole screen names the room
 * by (the server's `name`, "Room 7", would read "leave the room Room 7").
 */
export function roomDisplayName(room: RoomView): string {
  return roomLabel(room._id);
}
