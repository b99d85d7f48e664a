import { ROOM_SOCKET_PROTOCOL, ROOM_SOCKET_TOKEN_PREFIX, type RoomSocketAnswer } from '@oasis198/contracts';
import { fakeApi, fakeRoomSocket } from '../testing/fake-network';
import { ALICE, EDIT_ROOM, gameRoom, ROOM_ID } from '../testing/fixtures';
import { ApiError } from './client';
import { api } from './endpoints';
import { roomSocket } from './room-socket';
import { getSession, setSession } from './session';

const MOVE = { move: { number: 3 } } as const;
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

/** ADR 0035: edits over the room socket once it is open, PATCH .../edit whenever it is not. */
describe('room edits over the room socket', () => {
  beforeEach(() => setSession(ALICE));
  afterEach(() => {
    roomSocket.close();
    setSession(null);
  });

  it('opens the socket with the session token and sends the next edits on it', async () => {
    const api$ = fakeApi({ [EDIT_ROOM]: { body: { room: gameRoom() } } });
    const room = gameRoom({ version: 9 });
    const socket = fakeRoomSocket(({ id }) => ({ id, status: 200, body: { room } }));
    // The first edit goes over HTTP while the socket opens.
    await api.editRoom(ROOM_ID, MOVE);
    expect(api$.callsTo(EDIT_ROOM)).toHaveLength(1);
    await settled();
    expect(socket.connections).toEqual([[ROOM_SOCKET_PROTOCOL, ROOM_SOCKET_TOKEN_PREFIX + ALICE.token]]);
    await expect(api.editRoom(ROOM_ID, MOVE)).resolves.toEqual({ room });
    expect(socket.frames).toEqual([{ id: 1, roomId: ROOM_ID, body: MOVE }]);
    expect(api$.callsTo(EDIT_ROOM)).toHaveLength(1);
  });

  it('turns a refusal into the ApiError the HTTP call would throw, and a 401 ends the session', async () => {
    fakeApi({ [EDIT_ROOM]: { body: { room: gameRoom() } } });
    const refusals: RoomSocketAnswer['status'][] = [409, 401];
    fakeRoomSocket(({ id }) => {
      const status = refusals.shift() ?? 500;
      return {
        id,
        status,
        body: { message: `refused ${status}`, code: status === 409 ? 'CONFLICT' : 'UNAUTHORIZED' },
      };
    });
    await api.editRoom(ROOM_ID, MOVE);
    await settled();
    await expect(api.editRoom(ROOM_ID, MOVE)).rejects.toEqual(new ApiError(409, 'refused 409', 'CONFLICT'));
    expect(getSession()).not.toBeNull();
    await expect(api.editRoom(ROOM_ID, MOVE)).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(getSession()).toBeNull();
  });

  it('sends an edit again over HTTP when the socket closes before its answer', async () => {
    const room = gameRoom({ version: 4 });
    const api$ = fakeApi({ [EDIT_ROOM]: { body: { room } } });
    const socket = fakeRoomSocket(() => {
      setTimeout(() => socket.closeAll(), 0);
      return 'silent';
    });
    await api.editRoom(ROOM_ID, MOVE);
    await settled();
    await expect(api.editRoom(ROOM_ID, MOVE)).resolves.toEqual({ room });
    expect(socket.frames).toHaveLength(1);
    expect(api$.callsTo(EDIT_ROOM)).toHaveLength(2);
  });

  it('keeps to HTTP when no socket can be opened', async () => {
    const api$ = fakeApi({ [EDIT_ROOM]: { body: { room: gameRoom() } } });
    await api.editRoom(ROOM_ID, MOVE);
    await settled();
    await api.editRoom(ROOM_ID, MOVE);
    expect(api$.callsTo(EDIT_ROOM)).toHaveLength(2);
  });
});
