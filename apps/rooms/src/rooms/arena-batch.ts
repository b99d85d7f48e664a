import { ARENA_MESSAGES, type OpenArenaRoomRequest, type OpenArenaRoomResponse } from '@oasis198/contracts';

/** A player's seat in an arena room of a batch. */
export interface ArenaSeat {
  playerId: string;
  roomId: string;
}

/**
 * Why a batch of arena rooms cannot be opened as asked, or null: each room has two different
 * players, is in the batch once, and a player is in one room of it at most (their one membership
 * could not be for two rooms).
 */
export function arenaBatchRefusal(rooms: readonly OpenArenaRoomRequest[]): string | null {
  const roomIds = new Set<string>();
  const players = new Set<string>();
  for (const {
    roomId,
    players: [a, b],
  } of rooms) {
    if (a.id === b.id) return ARENA_MESSAGES.samePlayer;
    if (roomIds.has(roomId)) return ARENA_MESSAGES.roomTwice;
    roomIds.add(roomId);
    if (players.has(a.id) || players.has(b.id)) return ARENA_MESSAGES.playerInTwoRooms;
    players.add(a.id).add(b.id);
  }
  return null;
}

/** The seats of the rooms, two a room, in the rooms' order. */
export const seatsOf = (rooms: readonly OpenArenaRoomRequest[]): ArenaSeat[] =>
  rooms.flatMap(({ roomId, players }) => players.map((p) => ({ playerId: p.id, roomId })));

/**
 * Each room's answer once its seats were taken or refused (`taken`, one per seat of seatsOf):
 * a room whose players were all seated is to open; one with a player busy elsewhere is busy, and
 * the seats it did take are given back.
 */
export function planSeats(
  rooms: readonly OpenArenaRoomRequest[],
  taken: readonly boolean[],
): { open: OpenArenaRoomRequest[]; busy: Map<string, OpenArenaRoomResponse>; release: ArenaSeat[] } {
  const open: OpenArenaRoomRequest[] = [];
  const busy = new Map<string, OpenArenaRoomResponse>();
  const release: ArenaSeat[] = [];
  rooms.forEach((room, i) => {
    const seated = room.players.map((_, j) => taken[2 * i + j] === true);
    if (seated.every(Boolean)) {
      open.push(room);
      return;
    }
    busy.set(room.roomId, {
      opened: false,
      busy: room.players.filter((_, j) => !seated[j]).map((p) => p.id),
    });
    for (const [j, p] of room.players.entries()) {
      if (seated[j]) release.push({ playerId: p.id, roomId: room.roomId });
    }
  });
  return { open, busy, release };
}
