import type { INestApplication } from '@nestjs/common';
import { type DeadlineDueResponse, Requests, type RoomView, type TokenClaims } from '@oasis198/contracts';
import { aiThinkMs, fromSpecSeconds } from '@oasis198/game-rules';
import { getConnectionToken } from '@nestjs/mongoose';
import { Metrics, type RpcClient } from '@oasis198/service-kit';
import type { Connection } from 'mongoose';
import { useTestInfra } from '@oasis198/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { roomsClient, roomsTestEnv, startRooms, testCaller } from './rooms.test-client';

// Play now and the AI opponent, against real NATS and FerretDB, on a database of their
// own: Play now takes the oldest open room of the whole service.
const infra = useTestInfra();

describe('rooms service: Play now and the AI opponent', () => {
  let app: INestApplication;
  let rpc: RpcClient;
  const { call, create, join, move } = roomsClient(() => rpc);
  const playNow = (caller: TokenClaims) => call<RoomView>(Requests.rooms.playNow, { caller });
  const deadline = (room: RoomView, kind: 'ai-join' | 'ai-move') =>
    call<DeadlineDueResponse>(Requests.rooms.deadline, {
      roomId: room._id,
      kind,
      version: room.version,
      gameNumber: room.whosTurn.gameNumber,
      moveIndex: room.whosTurn.moves.length,
    });
  const get = (room: RoomView) => call<RoomView>(Requests.rooms.get, { roomId: room._id });
  const leave = (caller: TokenClaims, room: RoomView) =>
    call(Requests.rooms.edit, {
      caller,
      roomId: room._id,
      body: { players: { playerId: caller.userId, removePlayer: true } },
    });

  beforeAll(async () => {
    const env = roomsTestEnv(infra(), 'rooms-play-now', { AI_JOIN_AFTER_S: '1' });
    ({ app, rpc } = await startRooms(env, 'play-now-test'));
  });

  afterAll(async () => {
    await rpc?.close();
    await app?.close();
  });

  it('pairs 20 players pressing at once into 10 games, never a room of 3, and a second press changes nothing', async () => {
    const players = Array.from({ length: 20 }, (_, i) => testCaller(`now${i}`));
    const seated = await Promise.all(players.map(playNow));
    const rooms = new Map<string, Set<string>>();
    for (const room of seated) rooms.set(room._id, new Set());
    for (const id of rooms.keys()) {
      const room = await call<RoomView>(Requests.rooms.get, { roomId: id });
      expect(room.players.length).toBe(2);
      expect(room.gameStarted).toBe(true);
      for (const p of room.players) rooms.get(id)?.add(p.id);
    }
    expect(rooms.size).toBe(10);
    const everyone = [...rooms.values()].flatMap((ids) => [...ids]);
    expect(new Set(everyone).size).toBe(20);
    expect(everyone.sort()).toEqual(players.map((p) => p.userId).sort());
    // Pressed again: the player's own room, unchanged.
    const again = await playNow(players[0] as TokenClaims);
    expect(again._id).toBe(seated[0]?._id);
    expect(again.players).toHaveLength(2);
    // Clean up: one player of each room leaves (the game ends, the room goes).
    const byId = new Map(players.map((p) => [p.userId, p]));
    await Promise.all(
      [...rooms.entries()].map(([id, ids]) =>
        leave(byId.get([...ids][0] as string) as TokenClaims, { _id: id } as RoomView),
      ),
    );
  });

  it('lets one request of the replica at a time ask for the pairing lease: 30 at once cost no polling', async () => {
    const metrics = app.get(Metrics);
    /** Insert commands the service sent: a lease attempt begins with one (a duplicate while the lease exists). */
    const inserts = async (): Promise<number> => {
      const { values } = await metrics.databaseCommands.get();
      return values
        .filter(
          (v) =>
            v.metricName === 'oasis_db_command_duration_seconds_count' && v.labels['command'] === 'insert',
        )
        .reduce((sum, v) => sum + v.value, 0);
    };
    const players = Array.from({ length: 30 }, (_, i) => testCaller(`waiter${i}`));
    const before = await inserts();
    const settled = await Promise.allSettled(players.map(playNow));
    const perPress = ((await inserts()) - before) / players.length;
    // One lease attempt per press and the pairing's own writes. Polling, the waiting presses tried
    // every 5-25 ms while the pairings before theirs ran (about 29 inserts a press here), and
    // the pairings slowed down behind those writes until presses ran out of time.
    expect(perPress).toBeLessThanOrEqual(4);
    expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
    const seated = settled.map((r) => (r as PromiseFulfilledResult<RoomView>).value);
    expect(new Set(seated.map((room) => room._id)).size).toBe(15);
    // Clean up: one player of each room leaves (the game ends, the room goes).
    const leaver = new Map(seated.map((room, i) => [room._id, players[i] as TokenClaims]));
    await Promise.all([...leaver].map(([id, caller]) => leave(caller, { _id: id } as RoomView)));
  });

  it('seats the player in the oldest open room without a passcode, else opens one', async () => {
    const [ann, ben, cid, dee] = [testCaller('ann'), testCaller('ben'), testCaller('cid'), testCaller('dee')];
    const locked = await create(ann, { passCode: '12' });
    const open = await create(ben);
    const seated = await playNow(cid);
    expect(seated._id).toBe(open._id);
    expect(seated.players.map((p) => p.id)).toEqual([ben.userId, cid.userId]);
    // Only the passcode room is open now: Play now does not take it, it opens a room.
    const opened = await playNow(dee);
    expect(opened._id).not.toBe(locked._id);
    expect(opened.players.map((p) => p.id)).toEqual([dee.userId]);
    expect(opened).toMatchObject({ hasPassCode: false, gameStarted: false, duration: 32 });
    await Promise.all([leave(ann, locked), leave(ben, seated), leave(dee, opened)]);
  });

  it('seats nobody whose caller gave up waiting for the pairing lease', async () => {
    const leases = app.get<Connection>(getConnectionToken()).db?.collection<{ _id: string }>('leases');
    if (!leases) throw new Error('no database');
    // Another replica holds the lease for 1.5 s; the caller waits 0.7 s.
    await leases.updateOne(
      { _id: 'play-now' },
      { $set: { owner: 'another-replica', until: new Date(Date.now() + 1500) } },
      { upsert: true },
    );
    const jo = testCaller('jo');
    await expect(rpc.request(Requests.rooms.playNow, { caller: jo }, 700)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    // Before, the request went on waiting (up to 8 s), took the lease once it was free and opened a
    // room for jo, who had been told 503 and never heard of it.
    await sleep(2500);
    await expect(call(Requests.rooms.mine, { caller: jo })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await playNow(jo)).players.map((p) => p.id)).toEqual([jo.userId]);
    await leave(jo, await call<RoomView>(Requests.rooms.mine, { caller: jo }));
  });

  it('needs a caller', async () => {
    await expect(call(Requests.rooms.playNow, {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('lets the AI take the empty seat when nobody joined in time, and play its turns by the rules', async () => {
    const eve = testCaller('eve');
    const room = await create(eve, { aiOpponent: true, duration: 14 });
    expect(room).toMatchObject({ aiOpponent: true });
    expect(room.aiJoinsAt).toBe((room.waitingSince as number) + 1);
    expect(await deadline(room, 'ai-join')).toEqual({ applied: false, reason: 'not-due' });
    await sleep(1100);
    expect(await deadline(room, 'ai-join')).toEqual({ applied: true });
    let now = await get(room);
    expect(now.players).toEqual([
      { id: eve.userId, name: 'eve' },
      { id: `ai:${room._id}`, name: 'AI' },
    ]);
    expect(now).toMatchObject({ gameStarted: true, aiJoinsAt: null, whosTurn: { player1: { turn: true } } });
    // The AI plays only its own turn, and only after its think time.
    expect(await deadline(now, 'ai-move')).toEqual({ applied: false, reason: 'not-ai-turn' });
    now = await move(eve, room._id, 5);
    expect(await deadline(now, 'ai-move')).toEqual({ applied: false, reason: 'not-due' });
    const thinkMs = aiThinkMs(room._id, 1, 1);
    await sleep(Math.max(0, fromSpecSeconds(now.whosTurn.turnStart) + thinkMs - Date.now()) + 50);
    expect(await deadline(now, 'ai-move')).toEqual({ applied: true });
    const after = await get(room);
    expect(after.whosTurn.moves).toHaveLength(2);
    expect(after.whosTurn.moves[1]).toMatchObject({ player: 'player2' });
    expect(after.whosTurn.player1.turn).toBe(true);
    // The AI holds its seat like a person: the room is full to anyone else.
    await expect(join(testCaller('fay'), room._id)).rejects.toMatchObject({ code: 'ROOM_FULL' });
    await leave(eve, after);
  });

  it('gives the seat to a person who joins before the AI does', async () => {
    const gus = testCaller('gus');
    const hal = testCaller('hal');
    const room = await create(gus, { aiOpponent: true });
    const joined = await join(hal, room._id);
    await sleep(1100);
    expect(await deadline(room, 'ai-join')).toEqual({ applied: false, reason: 'not-waiting' });
    expect((await get(room)).players.map((p) => p.id)).toEqual([gus.userId, hal.userId]);
    await leave(gus, joined);
  });

  it('refuses an aiOpponent that is not true or false', async () => {
    await expect(create(testCaller('ida'), { aiOpponent: 'yes' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: 'aiOpponent must be true or false.',
    });
  });
});
