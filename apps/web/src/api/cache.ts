import {
  roomMovesPushDataSchema,
  type RoomSummary,
  type RoomView,
  roomViewSchema,
  withNewMoves,
} from '@oasis198/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';
import { noteServerNow } from './clock';

/** TanStack Query keys of the app's server state. */
export const keys = {
  rooms: ['rooms'] as const,
  roomList: (page: number, freeSpot: boolean) => ['rooms', { page, freeSpot }] as const,
  room: (roomId: string) => ['room', roomId] as const,
  myRoom: (userId: string | undefined) => ['my-room', userId ?? ''] as const,
  myRoomAll: ['my-room'] as const,
  reward: (userId: string) => ['reward', userId] as const,
  rewardAll: ['reward'] as const,
  leaderboard: (page: number) => ['leaderboard', page] as const,
  leaderboardAll: ['leaderboard'] as const,
  games: (userId: string) => ['games', userId] as const,
  gamesAll: ['games'] as const,
  gif: (url: string) => ['gif', url] as const,
};

/**
 * What this client knows about each room: the highest version seen, the version it was deleted
 * at, and its player count (to tell when a list filtered by free spots needs a refetch). Kept per
 * QueryClient so every test (and every app instance) starts clean.
 */
interface RoomLedger {
  versions: Map<string, number>;
  deleted: Map<string, number>;
  players: Map<string, number>;
}
const ledgers = new WeakMap<QueryClient, RoomLedger>();

function ledgerOf(client: QueryClient): RoomLedger {
  let ledger = ledgers.get(client);
  if (!ledger) {
    ledger = { versions: new Map(), deleted: new Map(), players: new Map() };
    ledgers.set(client, ledger);
  }
  return ledger;
}

/** True when this room (view or summary) is older than one already seen (or than the room's deletion). */
export function isStale(client: QueryClient, room: Pick<RoomView, '_id' | 'version'>): boolean {
  const ledger = ledgerOf(client);
  const gone = ledger.deleted.get(room._id);
  if (gone !== undefined && room.version <= gone) return true;
  const seen = ledger.versions.get(room._id);
  return seen !== undefined && room.version < seen;
}

function note(client: QueryClient, room: RoomView): void {
  const ledger = ledgerOf(client);
  ledger.versions.set(room._id, Math.max(room.version, ledger.versions.get(room._id) ?? 0));
  ledger.players.set(room._id, room.players.length);
  noteServerNow(room.serverNow);
}

/**
 * Puts a fresh room view (from a push, a mutation answer or a fetch) into the cache, unless a
 * newer one is already there. It is parsed with contracts' roomViewSchema first: anything that is
 * not a room is refused, and a room from before a newer field gets that field's default. Returns
 * whether it was taken.
 */
export function acceptRoom(client: QueryClient, value: unknown): boolean {
  const parsed = roomViewSchema.safeParse(value);
  if (!parsed.success || isStale(client, parsed.data)) return false;
  const room = parsed.data;
  const cached = client.getQueryData<RoomView>(keys.room(room._id));
  if (cached && cached.version > room.version) return false;
  put(client, room);
  return true;
}

function put(client: QueryClient, room: RoomView): void {
  note(client, room);
  client.setQueryData(keys.room(room._id), room);
}

/**
 * A `room-moves` push: the room with only its new moves, put together with the cached room it
 * continues. 'refetch' when there is no such room in the cache (another game, or moves missing):
 * the caller reads the room again. 'ignored' for anything older than the cache, or not a room.
 */
export function acceptRoomMoves(client: QueryClient, value: unknown): 'accepted' | 'ignored' | 'refetch' {
  const parsed = roomMovesPushDataSchema.safeParse(value);
  if (!parsed.success || isStale(client, parsed.data)) return 'ignored';
  const cached = client.getQueryData<RoomView>(keys.room(parsed.data._id));
  if (cached && cached.version >= parsed.data.version) return 'ignored';
  const room = cached ? withNewMoves(cached, parsed.data) : null;
  if (!room) return 'refetch';
  // The push is parsed and the cached room is one the cache took (a parsed push, or the API's own
  // answer), so the whole is not parsed again: that would cost every push the length of the game.
  put(client, room);
  return 'accepted';
}

/** The room query's result: the fetched view, or the cached one when a push already brought newer. */
export function mergeFetchedRoom(client: QueryClient, room: RoomView): RoomView {
  if (isStale(client, room) && ledgerOf(client).deleted.has(room._id)) {
    throw new ApiError(404, 'This room does not exist any more.', 'NOT_FOUND');
  }
  const cached = client.getQueryData<RoomView>(keys.room(room._id));
  if (cached && cached.version > room.version) return cached;
  note(client, room);
  return room;
}

/** Records a deletion; returns false when it was already known. */
export function markRoomDeleted(client: QueryClient, roomId: string, version: number): boolean {
  const ledger = ledgerOf(client);
  const known = ledger.deleted.get(roomId);
  if (known !== undefined && known >= version) return false;
  ledger.deleted.set(roomId, version);
  ledger.players.delete(roomId);
  return true;
}

export function wasDeleted(client: QueryClient, roomId: string): boolean {
  return ledgerOf(client).deleted.has(roomId);
}

/** A page of the room list as the app keeps it: its rooms, and how many match in all (X-Total-Count). */
export interface RoomListPage {
  rooms: RoomView[];
  total: number;
}

/** Seeds the ledger from a fetched list page. */
export function noteRoomPage(client: QueryClient, page: RoomListPage): void {
  const ledger = ledgerOf(client);
  for (const room of page.rooms) {
    if (!ledger.versions.has(room._id) || (ledger.versions.get(room._id) ?? 0) <= room.version) {
      ledger.versions.set(room._id, room.version);
      ledger.players.set(room._id, room.players.length);
    }
  }
}

/**
 * Applies a room summary pushed on the list stream to the cached list pages. A room whose player
 * count is unchanged is patched in place (a move); a new room, or one that gained or lost a
 * player, makes the lists refetch, since its place in a filtered, paginated list may have changed.
 * A summary carries no game state: it never replaces a room's full view in the room cache; a
 * cached older view is only marked stale, so the room is fetched again when it is next shown.
 */
export function applyRoomToLists(client: QueryClient, room: RoomSummary): 'patched' | 'refetch' | 'stale' {
  if (isStale(client, room)) return 'stale';
  const ledger = ledgerOf(client);
  const knownPlayers = ledger.players.get(room._id);
  const membershipChanged = knownPlayers === undefined || knownPlayers !== room.players.length;
  ledger.versions.set(room._id, Math.max(room.version, ledger.versions.get(room._id) ?? 0));
  ledger.players.set(room._id, room.players.length);
  const cached = client.getQueryData<RoomView>(keys.room(room._id));
  if (cached && cached.version < room.version) {
    void client.invalidateQueries({ queryKey: keys.room(room._id), exact: true, refetchType: 'none' });
  }
  if (membershipChanged) return 'refetch';
  client.setQueriesData<RoomListPage>({ queryKey: keys.rooms }, (page) =>
    page
      ? {
          ...page,
          // The list shows only summary fields; the rest of the entry stays as fetched.
          rooms: page.rooms.map((r) =>
            r._id === room._id && r.version <= room.version ? { ...r, ...room } : r,
          ),
        }
      : page,
  );
  return 'patched';
}
