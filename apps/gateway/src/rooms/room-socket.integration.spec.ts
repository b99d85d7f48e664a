import {
  ROOM_MESSAGES,
  ROOM_SOCKET_CLOSE,
  ROOM_SOCKET_PATH,
  ROOM_SOCKET_PROTOCOL,
  ROOM_SOCKET_TOKEN_PREFIX,
  type RoomSocketAnswer,
  type RoomView,
} from '@oasis198/contracts';
import { once } from 'node:events';
import WebSocket from 'ws';
import { type Player, useGameStack } from '../testing/game-stack';

/** A player's room socket, answering each request by its id. */
class Socket {
  private next = 1;
  private readonly waiting = new Map<number | null, (answer: RoomSocketAnswer) => void>();
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const answer = JSON.parse(data.toString()) as RoomSocketAnswer;
      this.waiting.get(answer.id)?.(answer);
      this.waiting.delete(answer.id);
    });
    this.closed = once(ws, 'close').then(([code]) => code as number);
  }

  static async open(baseUrl: string, token: string | null, path = ROOM_SOCKET_PATH): Promise<Socket> {
    const protocols = [ROOM_SOCKET_PROTOCOL, ...(token ? [ROOM_SOCKET_TOKEN_PREFIX + token] : [])];
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, protocols);
    const socket = new Socket(ws);
    await once(ws, 'open');
    return socket;
  }

  /** The HTTP status and body an upgrade was refused with. */
  static async refusal(baseUrl: string, token: string | null, path = ROOM_SOCKET_PATH) {
    const protocols = [ROOM_SOCKET_PROTOCOL, ...(token ? [ROOM_SOCKET_TOKEN_PREFIX + token] : [])];
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, protocols);
    ws.on('error', () => undefined);
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of res.setEncoding('utf8')) text += chunk;
    return { status: res.statusCode, body: JSON.parse(text) as { message: string; code: string } };
  }

  send(roomId: string, body: unknown): Promise<RoomSocketAnswer> {
    const id = this.next++;
    return this.sendRaw(JSON.stringify({ id, roomId, body }), id);
  }

  sendRaw(frame: string, id: number | null): Promise<RoomSocketAnswer> {
    const answer = new Promise<RoomSocketAnswer>((resolve) => this.waiting.set(id, resolve));
    this.ws.send(frame);
    return answer;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** ADR 0035: room edits over one WebSocket, judged as PATCH /api/rooms/:id/edit. */
describe('the room socket', () => {
  const stack = useGameStack({ ROOM_EDITS_PER_SECOND: '3', PUSH_STREAMS_PER_ADDRESS: '3' });
  const open: Socket[] = [];
  const socketOf = async (player: Player) => {
    const socket = await Socket.open(stack().baseUrl, player.token);
    open.push(socket);
    return socket;
  };
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });

  it('plays a move and answers with the room as the PATCH does', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const socket = await socketOf(alice);
    const answer = await socket.send(room._id, { move: { number: 7 } });
    expect(answer).toMatchObject({ id: 1, status: 200 });
    const after = (answer as { body: { room: RoomView } }).body.room;
    expect(after.whosTurn.currentNumber).toBe(7);
    expect((await s.getRoom(room._id)).body.version).toBe(after.version);
    // The HTTP call goes on beside it.
    expect((await s.move(bob, room._id, 3)).body.room.whosTurn.currentNumber).toBe(10);
  });

  it('refuses what the route refuses, with its status and message, and changes nothing', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const socket = await socketOf(bob);
    expect(await socket.send(room._id, { move: { number: 5 } })).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT' },
    });
    expect(await socket.send(room._id, { whosTurn: { currentNumber: 197 } })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining(ROOM_MESSAGES.rawWhosTurn) },
    });
    expect(await socket.sendRaw('{"id":', null)).toMatchObject({ id: null, status: 400 });
    expect(await socket.sendRaw(JSON.stringify({ id: 9, roomId: '' }), 9)).toMatchObject({
      id: 9,
      status: 400,
      body: { message: expect.stringContaining('roomId') },
    });
    expect((await s.getRoom(room._id)).body.version).toBe(room.version);
    expect((await s.move(alice, room._id, 1)).status).toBe(200);
  });

  it('counts moves on the per-user limit the HTTP route counts on', async () => {
    const s = stack();
    const { alice, room } = await s.startedGame();
    const socket = await socketOf(alice);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await s.move(alice, room._id, 1)).status).toBe(200);
    const answers = await Promise.all([0, 1, 2].map(() => socket.send(room._id, { move: { number: 1 } })));
    expect(answers.map((a) => a.status).sort()).toEqual([409, 409, 429]);
    expect(answers.find((a) => a.status === 429)).toMatchObject({ retryAfterS: 1 });
  });

  it('refuses an upgrade without a valid token, on another path, or past the address limit', async () => {
    const s = stack();
    expect(await Socket.refusal(s.baseUrl, null)).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });
    expect(await Socket.refusal(s.baseUrl, 'not.a.token')).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });
    const player = await s.register('w');
    expect(await Socket.refusal(s.baseUrl, player.token, '/api/rooms/other')).toMatchObject({ status: 404 });
    await Promise.all([1, 2, 3].map(() => socketOf(player)));
    expect(await Socket.refusal(s.baseUrl, player.token)).toMatchObject({
      status: 429,
      body: { code: 'RATE_LIMITED' },
    });
  });

  it('ends the socket once its token is logged out', async () => {
    const s = stack();
    const { alice, room } = await s.startedGame();
    const socket = await socketOf(alice);
    expect((await s.call('POST', '/api/users/logout', { token: alice.token })).status).toBe(200);
    expect(await socket.send(room._id, { move: { number: 2 } })).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });
    expect(await socket.closed).toBe(ROOM_SOCKET_CLOSE.invalidToken);
    expect((await s.getRoom(room._id)).body.version).toBe(room.version);
  });

  it('answers 429 to requests past the ones a socket may have in flight', async () => {
    const s = stack();
    const { bob, room } = await s.startedGame();
    const socket = await socketOf(bob);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() =>
        socket.send(room._id, { players: { playerId: bob.id, playerName: bob.name } }),
      ),
    );
    expect(
      answers.filter((a) => a.status === 429 && /requests may wait/.test(a.body.message as string)),
    ).toHaveLength(2);
  });

  it('answers the requests in flight, then closes with 1001, when its replica shuts down', async () => {
    const s = stack();
    const { alice, room } = await s.startedGame();
    const replica = await s.accounts.startGatewayReplica();
    const socket = await Socket.open(replica.baseUrl, alice.token);
    // With rooms away, the move waits for a responder: it is in flight when the replica goes.
    await s.stopRooms();
    try {
      const order: string[] = [];
      const answered = socket.send(room._id, { move: { number: 4 } }).then((answer) => {
        order.push('answer');
        return answer;
      });
      const closed = socket.closed.then((code) => {
        order.push('close');
        return code;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await replica.app.close();
      expect(await answered).toMatchObject({ status: 503 });
      expect(await closed).toBe(ROOM_SOCKET_CLOSE.goingAway);
      expect(order).toEqual(['answer', 'close']);
    } finally {
      await s.startRooms();
    }
  });
});
