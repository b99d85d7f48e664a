import { type RoomView, toRoomMoves, toRoomSummary } from '@oasis198/contracts';
import { QueryClient } from '@tanstack/react-query';
import { enginePlayedGame, gameRoom, room } from '../testing/fixtures';
import {
  acceptRoom,
  acceptRoomMoves,
  applyRoomToLists,
  keys,
  markRoomDeleted,
  mergeFetchedRoom,
  noteRoomPage,
  type RoomListPage,
} from './cache';

describe('room cache', () => {
  it('keeps the highest version of a room', () => {
    const client = new QueryClient();
    expect(acceptRoom(client, room({ version: 3 }))).toBe(true);
    expect(acceptRoom(client, room({ version: 2, name: 'old' }))).toBe(false);
    expect(acceptRoom(client, room({ version: 4, name: 'new' }))).toBe(true);
    expect(client.getQueryData<{ name: string }>(keys.room(room()._id))?.name).toBe('new');
    expect(acceptRoom(client, { nonsense: true })).toBe(false);
  });

  it('refuses a pushed room whose game state or players are not what a room holds', () => {
    const client = new QueryClient();
    expect(acceptRoom(client, { ...room({ version: 5 }), whosTurn: [] })).toBe(false);
    expect(acceptRoom(client, room({ version: 5, players: [{} as never] }))).toBe(false);
    expect(acceptRoom(client, { ...room({ version: 5 }), version: '5' })).toBe(false);
    expect(client.getQueryData(keys.room(room()._id))).toBeUndefined();
  });

  it('refuses a pushed room that is not a RoomView, however close', () => {
    const client = new QueryClient();
    const base = room({ version: 5 });
    const wrong: unknown[] = [
      { ...base, gameType: 'chess' },
      { ...base, duration: '32' },
      { ...base, createdAt: 'yesterday' },
      { ...base, aiCommit: 'not a commitment' },
      { ...base, createdBy: undefined },
      { ...base, whosTurn: { ...base.whosTurn, moves: [{ player: 'player1', number: 12 }] } },
      { ...base, whosTurn: { ...base.whosTurn, helpOasis: undefined } },
      { ...base, whosTurn: { ...base.whosTurn, currentNumber: -3 } },
    ];
    for (const value of wrong) expect([value, acceptRoom(client, value)]).toEqual([value, false]);
    expect(client.getQueryData(keys.room(base._id))).toBeUndefined();
  });

  it('takes a room from before the newer fields, with the values the server gives them today', () => {
    const client = new QueryClient();
    const {
      aiCommit: _c,
      aiSeed: _s,
      waitingSince: _w,
      aiOpponent: _o,
      aiJoinsAt: _j,
      ...old
    } = room({
      version: 3,
    });
    const { aiCommit: _tc, aiSeed: _ts, ...oldState } = old.whosTurn;
    expect(acceptRoom(client, { ...old, whosTurn: oldState })).toBe(true);
    expect(client.getQueryData<RoomView>(keys.room(old._id))).toMatchObject({
      aiCommit: null,
      aiSeed: null,
      waitingSince: null,
      aiOpponent: false,
      aiJoinsAt: null,
      whosTurn: { aiCommit: null, aiSeed: null },
    });
  });

  it('answers a fetch with the cached view when a push brought a newer one', () => {
    const client = new QueryClient();
    acceptRoom(client, room({ version: 9, name: 'pushed' }));
    expect(mergeFetchedRoom(client, room({ version: 8, name: 'fetched' })).name).toBe('pushed');
    expect(mergeFetchedRoom(client, room({ version: 10, name: 'fetched' })).name).toBe('fetched');
  });

  it('ignores anything up to the version a room was deleted at', () => {
    const client = new QueryClient();
    acceptRoom(client, room({ version: 2 }));
    expect(markRoomDeleted(client, room()._id, 5)).toBe(true);
    expect(markRoomDeleted(client, room()._id, 5)).toBe(false);
    expect(acceptRoom(client, room({ version: 4 }))).toBe(false);
    expect(() => mergeFetchedRoom(client, room({ version: 5 }))).toThrow('does not exist');
  });

  it('patches list pages for a move, and asks for a refetch when players come or go', () => {
    const client = new QueryClient();
    const page: RoomListPage = { rooms: [room({ version: 1 })], total: 1 };
    client.setQueryData(keys.roomList(1, false), page);
    noteRoomPage(client, page);
    expect(applyRoomToLists(client, room({ version: 2, name: 'moved' }))).toBe('patched');
    expect(client.getQueryData<RoomListPage>(keys.roomList(1, false))?.rooms[0]?.name).toBe('moved');
    const joined = room({ version: 3, players: [...room().players, { id: 'b', name: 'bob' }] });
    expect(applyRoomToLists(client, joined)).toBe('refetch');
    expect(applyRoomToLists(client, room({ version: 1 }))).toBe('stale');
    expect(applyRoomToLists(client, room({ _id: 'brand-new-room', version: 1 }))).toBe('refetch');
  });

  it('patches the list with a pushed summary, but never puts a summary into the room cache', () => {
    const client = new QueryClient();
    const full = room({ version: 1 });
    const page: RoomListPage = { rooms: [full], total: 1 };
    client.setQueryData(keys.roomList(1, false), page);
    noteRoomPage(client, page);
    acceptRoom(client, full);

    const summary = toRoomSummary(room({ version: 2, name: 'moved', gameOver: true }));
    expect(applyRoomToLists(client, summary)).toBe('patched');
    const listed = client.getQueryData<RoomListPage>(keys.roomList(1, false))?.rooms[0];
    expect(listed).toMatchObject({ name: 'moved', gameOver: true, version: 2 });
    expect(listed?.whosTurn).toEqual(full.whosTurn); // still a whole room view
    // The room's own cache keeps its full view, marked stale so that it is fetched when shown.
    expect(client.getQueryData<RoomView>(keys.room(full._id))).toEqual(full);
    expect(client.getQueryState(keys.room(full._id))?.isInvalidated).toBe(true);
    // The full room of that version (the room's stream) is still taken.
    expect(acceptRoom(client, room({ version: 2, name: 'moved' }))).toBe(true);
  });
});

describe('room-moves pushes', () => {
  const { moves } = enginePlayedGame();
  /** The game after its first n moves, at a version. */
  const after = (n: number, version: number) => gameRoom({ moves: moves.slice(0, n), version });
  const cachedMoves = (client: QueryClient) =>
    client.getQueryData<RoomView>(keys.room(after(0, 1)._id))?.whosTurn.moves;

  it('put the new moves after the cached ones', () => {
    const client = new QueryClient();
    acceptRoom(client, after(3, 5));
    expect(acceptRoomMoves(client, toRoomMoves(after(5, 7), 3))).toBe('accepted');
    expect(cachedMoves(client)).toEqual(moves.slice(0, 5));
    // A push may repeat moves the client has: they are the same moves.
    expect(acceptRoomMoves(client, toRoomMoves(after(6, 8), 4))).toBe('accepted');
    expect(cachedMoves(client)).toEqual(moves.slice(0, 6));
  });

  it('ignore an older one, and ask for the room when they do not continue the cached game', () => {
    const client = new QueryClient();
    acceptRoom(client, after(3, 5));
    expect(acceptRoomMoves(client, toRoomMoves(after(2, 4), 1))).toBe('ignored');
    expect(acceptRoomMoves(client, { nonsense: true })).toBe('ignored');
    // Moves the client never got (a push in between was missed).
    expect(acceptRoomMoves(client, toRoomMoves(after(6, 8), 4))).toBe('refetch');
    // Another game.
    const next = after(1, 9);
    expect(
      acceptRoomMoves(client, toRoomMoves({ ...next, whosTurn: { ...next.whosTurn, gameNumber: 2 } }, 0)),
    ).toBe('refetch');
    expect(cachedMoves(client)).toEqual(moves.slice(0, 3));
    // Nothing cached to continue.
    expect(acceptRoomMoves(new QueryClient(), toRoomMoves(after(5, 7), 3))).toBe('refetch');
  });
});
