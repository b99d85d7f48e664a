import {
  editRoomResponseSchema,
  httpErrorBodySchema,
  type PlayedGame,
  roomGonePushDataSchema,
  type RoomMovesPushData,
  roomListSchema,
  roomMovesPushDataSchema,
  roomSummarySchema,
  type RoomView,
  roomViewSchema,
  ROOM_MESSAGES,
  TOTAL_COUNT_HEADER,
} from '@oasis198/contracts';
import { MESSAGES, offeredOptions, OPTION_LABELS, type OasisOption, verifyGame } from '@oasis198/game-rules';
import { SseClient, waitFor } from '@oasis198/testing';
import { expectExactly } from '../testing/exactly';
import { type GameStack, type Player, useGameStack } from '../testing/game-stack';

const PICK = 'Pick a whole number from 1 to 9, or "random".';

/** Every key and string value of a JSON text, to look for a secret anywhere in it. */
function leaks(text: string, secret: string): boolean {
  let found = false;
  const walk = (value: unknown): void => {
    if (found) return;
    if (typeof value === 'string') found = value === secret;
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'passCode') found = true;
        walk(inner);
      }
    }
  };
  try {
    walk(JSON.parse(text));
  } catch {
    found = text.includes('"passCode"') || text.includes(secret);
  }
  return found;
}

/** Plays plain 9s (whoever's turn it is) until the game is over; returns the final room. */
async function playTo198(stack: GameStack, roomId: string, players: Record<'player1' | 'player2', Player>) {
  let room = (await stack.getRoom(roomId)).body;
  while (!room.whosTurn.gameOver) {
    const mover = room.whosTurn.player1.turn ? players.player1 : players.player2;
    const res = await stack.move(mover, roomId, 9);
    expect(res.status).toBe(200);
    room = res.body.room;
  }
  return room;
}

describe('rooms through the gateway (SPEC §7) with live push', () => {
  const stack = useGameStack();

  describe('a full game to 198 with every option at every tier, watched live', () => {
    // The set-up plays the whole game and records what it saw; each case checks one part of it.
    const secret = '9073';
    const PRE_MOVE = [0, 10, 2.5, '5'] as const;
    let s: GameStack;
    let alice: Player, bob: Player, winner: Player, loser: Player;
    let roomId: string;
    let created: Awaited<ReturnType<GameStack['createRoom']>>;
    let watcher: SseClient, lister: SseClient;
    let joins: Record<
      'wrongCode' | 'noCode' | 'joined' | 'repeat' | 'full',
      Awaited<ReturnType<GameStack['join']>>
    >;
    let refusals: Record<string, Awaited<ReturnType<GameStack['move']>>>;
    let optionRefusals: Array<{ status: number; message: unknown; expected: string }>;
    let moveStatuses: number[];
    let usedAt: Map<number, Set<OasisOption>>;
    let room: RoomView;

    beforeAll(async () => {
      s = stack();
      let carol: Player;
      [alice, bob, carol] = await Promise.all([s.register('a'), s.register('b'), s.register('c')]);
      created = await s.createRoom(alice, { passCode: secret, duration: 60 });
      roomId = created.body._id;
      // Visitors watch without logging in: one room, and the whole list.
      watcher = await SseClient.open(`${s.baseUrl}/api/rooms/${roomId}/stream`);
      lister = await SseClient.open(`${s.baseUrl}/api/rooms/stream`);
      await watcher.until((w) => w.of('room').length === 1, 'the current room first');

      const wrongCode = await s.join(bob, roomId, '1111');
      const noCode = await s.join(bob, roomId);
      const joined = await s.join(bob, roomId, secret);
      joins = {
        wrongCode,
        noCode,
        joined,
        repeat: await s.join(bob, roomId, secret),
        full: await s.join(carol, roomId, secret),
      };

      refusals = {
        outOfTurn: await s.move(bob, roomId, 5),
        notAPlayer: await s.move(carol, roomId, 5),
        rawWhosTurn: await s.edit(alice, roomId, { whosTurn: { currentNumber: 197, gameOver: false } }),
        moveAndWhosTurn: await s.edit(alice, roomId, { move: { number: 3 }, whosTurn: {} }),
      };
      for (const pick of PRE_MOVE) refusals[`pick ${String(pick)}`] = await s.move(alice, roomId, pick);

      // Play: every option offered at each tier once, after trying the others there.
      const players = { player1: alice, player2: bob };
      optionRefusals = [];
      moveStatuses = [];
      usedAt = new Map();
      room = joined.body.room;
      while (!room.whosTurn.gameOver && moveStatuses.length < 200) {
        const mover = players[room.whosTurn.player1.turn ? 'player1' : 'player2'];
        const total = room.whosTurn.currentNumber;
        const tier = total >= 161 ? 3 : total >= 73 ? 2 : 1;
        const used = usedAt.get(tier) ?? new Set<OasisOption>();
        usedAt.set(tier, used);
        if (used.size === 0) {
          for (const option of (['double', 'extra', 'added', 'bonus', 'minus'] as const).filter(
            (o) => !offeredOptions(total).includes(o),
          )) {
            const res = await s.move(mover, roomId, 1, option);
            const expected = `${OPTION_LABELS[option]} is not offered at a total of ${total}.`;
            optionRefusals.push({
              status: res.status,
              message: (res.body as { message?: unknown }).message,
              expected,
            });
          }
        }
        const option = offeredOptions(total).find((o) => !used.has(o));
        const number =
          option === 'minus' || (tier === 3 && option) ? 1 : moveStatuses.length === 3 ? 'random' : 9;
        const res = await s.move(mover, roomId, number, option ?? 'plain');
        moveStatuses.push(res.status);
        if (res.status !== 200) break;
        if (option) used.add(option);
        room = res.body.room;
      }
      const last = room.whosTurn.moves.at(-1);
      winner = players[last?.player ?? 'player1'];
      loser = winner === alice ? bob : alice;
      await watcher.until((w) => w.rooms().some((r) => r.whosTurn.gameOver), 'the final state');
      await lister.until(
        (l) => l.of<RoomView>('room').some((r) => r._id === roomId && r.gameOver),
        'the list stream',
      );
    });

    afterAll(() => {
      watcher.close();
      lister.close();
    });

    it('creates the room, showing that it has a passcode', () => {
      expect(created.status).toBe(201);
      expectExactly(roomViewSchema, created.body);
      expect(created.body).toMatchObject({
        hasPassCode: true,
        players: [{ id: alice.id }],
        gameStarted: false,
      });
    });

    it('streams to visitors without a login, unbuffered and uncached', () => {
      expect(watcher.status).toBe(200);
      expect(watcher.headers?.get('content-type')).toMatch(/^text\/event-stream/);
      expect(watcher.headers?.get('cache-control')).toMatch(/no-cache/);
      expect(watcher.headers?.get('x-accel-buffering')).toBe('no');
    });

    it('checks the passcode, starts the game on the second player, takes a repeat, and refuses a third', () => {
      expect(joins.wrongCode).toMatchObject({ status: 403, body: { message: 'Oops, try again!' } });
      expect(joins.noCode).toMatchObject({ status: 403, body: { message: 'Oops, try again!' } });
      expect(joins.joined.status).toBe(200);
      expectExactly(editRoomResponseSchema, joins.joined.body);
      expect(joins.joined.body.room.whosTurn).toMatchObject({
        gameStarted: true,
        gameNumber: 1,
        specialRandom: null,
      });
      expect(joins.repeat.status).toBe(200);
      expect(joins.full).toMatchObject({
        status: 409,
        body: { message: ROOM_MESSAGES.full, code: 'ROOM_FULL' },
      });
      expectExactly(httpErrorBodySchema, joins.full.body);
    });

    it('refuses a move out of turn, by a non-player, a bad pick, and a raw game-state write', () => {
      expect(refusals['outOfTurn']).toMatchObject({ status: 409, body: { message: 'It is not your turn.' } });
      expect(refusals['notAPlayer']).toMatchObject({
        status: 403,
        body: { message: ROOM_MESSAGES.notAPlayer },
      });
      for (const pick of PRE_MOVE) {
        expect(refusals[`pick ${String(pick)}`]).toMatchObject({ status: 400, body: { message: PICK } });
      }
      expect(refusals['rawWhosTurn']).toMatchObject({
        status: 400,
        body: { message: ROOM_MESSAGES.rawWhosTurn },
      });
      expect(refusals['moveAndWhosTurn']).toMatchObject({ status: 400 });
    });

    it('refuses the options a tier does not offer and plays each offered one', () => {
      expect(optionRefusals.length).toBeGreaterThan(0);
      for (const { status, message, expected } of optionRefusals)
        expect({ status, message }).toEqual({ status: 400, message: expected });
      expect(moveStatuses.every((status) => status === 200)).toBe(true);
      expect(usedAt).toEqual(
        new Map([
          [1, new Set(['double', 'extra', 'bonus'])],
          [2, new Set(['extra', 'added', 'bonus'])],
          [3, new Set(['added', 'bonus', 'minus'])],
        ]),
      );
    });

    it('ends at 198 with the last mover winning, and reveals secrets that check out', () => {
      const last = room.whosTurn.moves.at(-1);
      expect(room.whosTurn).toMatchObject({ gameOver: true, endReason: 'reached198', winner: last?.player });
      expect(room.whosTurn.currentNumber).toBeGreaterThanOrEqual(198);
      expect(room.whosTurn.specialRandom).toEqual(expect.any(Number));
      expect(verifyGame(room.aiSeed ?? '', room.aiCommit ?? '', room.whosTurn.moves)).toEqual({
        valid: true,
        problems: [],
      });
      expectExactly(roomViewSchema, room);
    });

    it('pushes every move to the watcher in order, each in its own version, then only the new moves', () => {
      const views = watcher.rooms();
      const versions = views.map((v) => v.version);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(new Set(versions).size).toBe(versions.length);
      const frames = watcher.events.filter((e) => e.event === 'room' || e.event === 'room-moves');
      expect(frames.map((e) => Number(e.id))).toEqual(versions);
      const moveFrames = watcher.of<RoomMovesPushData>('room-moves');
      expect(moveFrames.length).toBeGreaterThan(0);
      for (const frame of moveFrames) expect(frame.whosTurn.moves.length).toBeLessThanOrEqual(1);
      const moveCounts = views.map((v) => v.whosTurn.moves.length);
      for (let n = 1; n <= room.whosTurn.moves.length; n++) expect(moveCounts).toContain(n);
      expect(views.at(-1)?.whosTurn.moves).toEqual(room.whosTurn.moves);
    });

    it('pushes what the contracts state: the room or its new moves, and on the list its summary', () => {
      for (const frame of watcher.of('room')) expectExactly(roomViewSchema, frame);
      for (const frame of watcher.of('room-moves')) expectExactly(roomMovesPushDataSchema, frame);
      for (const view of watcher.rooms()) expectExactly(roomViewSchema, view);
      for (const summary of lister.of('room')) expectExactly(roomSummarySchema, summary);
    });

    it('pays 25 points and 10 coins to the winner, 5 and 1 to the loser, once each', async () => {
      const won = await s.rewardOf(winner.id, (r) => r.playedGames === 1);
      const lost = await s.rewardOf(loser.id, (r) => r.playedGames === 1);
      expect(won.assets).toEqual({ points: 25, coins: 10 });
      expect(lost.assets).toEqual({ points: 5, coins: 1 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await s.rewardOf(winner.id)).playedGames).toBe(1);
    });

    it('never carries the passcode in an answer or a pushed frame', () => {
      const texts = [...s.seen, ...watcher.events.map((e) => e.data), ...lister.events.map((e) => e.data)];
      expect(texts.filter((t) => leaks(t, secret))).toEqual([]);
    });
  });

  it('refuses an option with no uses left, then plays it again once matched credit or uses allow', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    let view = room;
    // Alice doubles 1s (bob plays plain 1s) until her doubles and matched credit are gone.
    for (let i = 0; i < 40; i++) {
      const counts = view.whosTurn.helpOasis.oasis1;
      if (counts.double + counts.matched === 0) break;
      view = (await s.move(alice, room._id, 1, 'double')).body.room;
      view = (await s.move(bob, room._id, 1)).body.room;
    }
    expect(view.whosTurn.helpOasis.oasis1.double + view.whosTurn.helpOasis.oasis1.matched).toBe(0);
    expect(await s.move(alice, room._id, 1, 'double')).toMatchObject({
      status: 400,
      body: { message: 'You have no Double left.' },
    });
    expect(await s.move(alice, room._id, 1, 'triple')).toMatchObject({ status: 400 });
    expect((await s.move(alice, room._id, 1, 'extra')).status).toBe(200);
  });

  it('applies one of two simultaneous moves, and gives exactly 2 players to 20 simultaneous joins', async () => {
    const s = stack();
    const { alice, room } = await s.startedGame();
    const both = await Promise.all([s.move(alice, room._id, 4), s.move(alice, room._id, 6)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)?.body.message).toBe('It is not your turn.');
    const after = (await s.getRoom(room._id)).body;
    expect(after.whosTurn.moves).toHaveLength(1);
    expect(after.version).toBe(room.version + 1);

    const host = await s.register('h');
    const open = await s.createRoom(host);
    const racers = await Promise.all(Array.from({ length: 20 }, () => s.register('j')));
    const results = await Promise.all(racers.map((r) => s.join(r, open.body._id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    const final = (await s.getRoom(open.body._id)).body;
    expect(final.players).toHaveLength(2);
    expect(final.gameStarted).toBe(true);
  });

  it('starts a new game when both press Play Again, and a player leaving mid-game loses it', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const watcher = await SseClient.open(`${s.baseUrl}/api/rooms/${room._id}/stream`);
    const over = await playTo198(s, room._id, { player1: alice, player2: bob });
    const firstWinner = over.whosTurn.winner === 'player1' ? alice : bob;

    expect(await s.ready(alice, room._id, 'player2')).toMatchObject({
      status: 403,
      body: { message: ROOM_MESSAGES.notYourSeat },
    });
    const one = await s.ready(alice, room._id, 'player1');
    expect(one.body.room.whosTurn).toMatchObject({ gameOver: true, player1: { restart: true } });
    const again = await s.ready(bob, room._id, 'player2');
    expect(again.body.room.whosTurn).toMatchObject({
      gameNumber: 2,
      gameStarted: true,
      gameOver: false,
      currentNumber: 0,
      moves: [],
      specialRandom: null,
    });
    expect(again.body.room.whosTurn.player1.turn).toBe(true);

    // Game 2: both move, then alice leaves: bob wins by 'left', the room is deleted.
    expect((await s.move(alice, room._id, 7)).status).toBe(200);
    expect((await s.move(bob, room._id, 7)).status).toBe(200);
    expect((await s.leave(alice, room._id)).status).toBe(200);
    expect((await s.getRoom(room._id)).status).toBe(404);
    await watcher.until((w) => w.of('room-deleted').length === 1, 'room-deleted');
    expect(watcher.of('room-deleted')[0]).toMatchObject({ roomId: room._id, reason: 'left' });
    expectExactly(roomGonePushDataSchema, watcher.of('room-deleted')[0]);
    const finalState = watcher.rooms().at(-1);
    expect(finalState?.whosTurn).toMatchObject({
      gameNumber: 2,
      gameOver: true,
      endReason: 'left',
      winner: 'player2',
    });
    expect(await watcher.ended()).toBe(true);

    // Game 1 paid normally; game 2: 25/10 to bob, nothing to alice for leaving.
    const bobReward = await s.rewardOf(bob.id, (r) => r.playedGames === 2);
    const aliceReward = await s.rewardOf(alice.id, (r) => r.playedGames === 2);
    const game1 = (p: Player) => (p === firstWinner ? { points: 25, coins: 10 } : { points: 5, coins: 1 });
    expect(bobReward.assets).toEqual({ points: game1(bob).points + 25, coins: game1(bob).coins + 10 });
    expect(aliceReward.assets).toEqual(game1(alice));
    // Both can play again elsewhere at once.
    expect((await s.createRoom(alice)).status).toBe(201);
  });

  it('pays nothing for an instant forfeit: a game left before both moved is aborted (DECISIONS.md)', async () => {
    const s = stack();
    const [farmer, feeder] = await Promise.all([s.register('f'), s.register('g')]);
    const before = await Promise.all([s.rewardOf(farmer.id), s.rewardOf(feeder.id)]);
    const forfeits: string[] = [];
    // The feeder opens a 14 s room, the farmer joins, and the feeder leaves at once: three times,
    // then once after one move by the farmer (the feeder still never moved).
    for (let i = 0; i < 4; i++) {
      const created = await s.createRoom(feeder, { duration: 14 });
      expect(created.status).toBe(201);
      const roomId = created.body._id;
      forfeits.push(`${roomId}:1`);
      expect((await s.join(farmer, roomId)).status).toBe(200);
      if (i === 3) {
        // The feeder created the room, so the farmer joined second: the feeder moves first here.
        expect((await s.move(feeder, roomId, 5)).status).toBe(200);
      }
      expect((await s.leave(feeder, roomId)).status).toBe(200);
      expect((await s.getRoom(roomId)).status).toBe(404);
    }
    // A last game in which both move before the feeder leaves: paid, and paid after the forfeits.
    const created = await s.createRoom(feeder, { duration: 14 });
    const paidRoom = created.body._id;
    expect((await s.join(farmer, paidRoom)).status).toBe(200);
    expect((await s.move(feeder, paidRoom, 5)).status).toBe(200);
    expect((await s.move(farmer, paidRoom, 5)).status).toBe(200);
    expect((await s.leave(feeder, paidRoom)).status).toBe(200);

    const farmerAfter = await s.rewardOf(farmer.id, (r) => r.playedGames > 0);
    const feederAfter = await s.rewardOf(feeder.id, (r) => r.playedGames > 0);
    expect(before.map((r) => [r.playedGames, r.wins, r.assets])).toEqual([
      [0, 0, { points: 0, coins: 0 }],
      [0, 0, { points: 0, coins: 0 }],
    ]);
    // Only the last game counts: one played game each, one win and one blitz title for the farmer.
    expect(farmerAfter).toMatchObject({
      playedGames: 1,
      wins: 1,
      assets: { points: 25, coins: 10 },
      championStatus: { blitzWinner: true },
    });
    expect(feederAfter).toMatchObject({ playedGames: 1, wins: 0, assets: { points: 0, coins: 0 } });

    // Both histories list the forfeits as aborted, with why they ended.
    for (const player of [farmer, feeder]) {
      const history = await waitFor(
        async () => {
          const res = await s.call<PlayedGame[]>('GET', `/api/rewards/${player.id}/games`);
          return res.status === 200 && res.body.length === 5 ? res.body : undefined;
        },
        { timeoutMs: 15_000, what: `the history of ${player.name}` },
      );
      const rows = new Map(history.map((g) => [g.gameId, [g.result, g.endReason, g.moves]]));
      for (const [i, gameId] of forfeits.entries()) {
        expect(rows.get(gameId)).toEqual(['aborted', 'left', i === 3 ? 1 : 0]);
      }
      expect(rows.get(`${paidRoom}:1`)).toEqual([player === farmer ? 'won' : 'lost', 'left', 2]);
    }
  });

  it("shows a player's new name in the next room they open, at once after the rename", async () => {
    const s = stack();
    const alice = await s.register('a');
    // An authenticated call first, so that the gateway holds a verification of her token.
    expect((await s.call('GET', '/api/rooms/mine', { token: alice.token })).status).toBe(404);
    const renamed = `N${alice.name.slice(-9)}`;
    const edited = await s.call('PATCH', '/api/users/edit', { token: alice.token, body: { name: renamed } });
    expect(edited.status).toBe(200);
    const created = await s.createRoom(alice);
    expect(created.status).toBe(201);
    expect(created.body.createdBy).toEqual({ id: alice.id, name: renamed });
    expect(created.body.players).toEqual([{ id: alice.id, name: renamed }]);
  });

  it('serves the other SPEC §7 room calls, checking shape, identity and permissions', async () => {
    const s = stack();
    const [dave, erin] = await Promise.all([s.register('d'), s.register('e')]);
    const body = {
      gameType: 'quick-battle',
      createdBy: { id: dave.id, name: dave.name },
      duration: 32,
      passCode: '',
    };

    expect((await s.call('POST', '/api/rooms/', { body })).status).toBe(401);
    expect(
      await s.call('POST', '/api/rooms/', { token: dave.token, body: { ...body, duration: 15 } }),
    ).toMatchObject({ status: 400, body: { message: MESSAGES.duration } });
    expect(
      await s.call('POST', '/api/rooms/', { token: dave.token, body: { ...body, passCode: 'ab12' } }),
    ).toMatchObject({ status: 400, body: { message: MESSAGES.createPasscode } });
    expect(
      (await s.call('POST', '/api/rooms/', { token: dave.token, body: { ...body, passCode: { $ne: '' } } }))
        .status,
    ).toBe(400);
    expect(
      (await s.call('POST', '/api/rooms/', { token: dave.token, body: { ...body, admin: true } })).status,
    ).toBe(400);
    expect(
      await s.call('POST', '/api/rooms/', {
        token: dave.token,
        body: { ...body, createdBy: { id: erin.id, name: 'x' } },
      }),
    ).toMatchObject({ status: 403, body: { message: ROOM_MESSAGES.identityMismatch } });

    expect((await s.call('GET', '/api/rooms/mine', { token: dave.token })).status).toBe(404);
    const room = (await s.call<RoomView>('POST', '/api/rooms/', { token: dave.token, body })).body;
    expect((await s.call('POST', '/api/rooms/', { token: dave.token, body })).status).toBe(409);
    const mine = await s.call<RoomView>('GET', '/api/rooms/mine', { token: dave.token });
    expect(mine.body._id).toBe(room._id);
    expectExactly(roomViewSchema, mine.body);
    expect((await s.call('GET', '/api/rooms/mine')).status).toBe(401);

    // SPEC §7: a list, newest first; how many match in all in X-Total-Count.
    const page = await s.call<RoomView[]>('GET', '/api/rooms/?page=1&freeSpot=true');
    expect(page.status).toBe(200);
    expect(page.body[0]?._id).toBe(room._id);
    expect(page.body.every((r) => r.players.length === 1)).toBe(true);
    expect(page.headers.get(TOTAL_COUNT_HEADER)).toMatch(/^\d+$/);
    expect(Number(page.headers.get(TOTAL_COUNT_HEADER))).toBeGreaterThanOrEqual(page.body.length);
    expectExactly(roomListSchema, page.body);
    expect((await s.call('GET', '/api/rooms/?page=0')).status).toBe(400);
    expect((await s.call('GET', '/api/rooms/?gameType=chess')).status).toBe(400);
    expect((await s.call('GET', '/api/rooms/000000000000000000000000')).status).toBe(404);
    expect((await s.call('GET', '/api/rooms/000000000000000000000000/stream')).status).toBe(404);

    const edit = (player: Player, payload: unknown) => s.edit(player, room._id, payload);
    expect(await edit(erin, { players: { playerId: dave.id, playerName: 'x' } })).toMatchObject({
      status: 403,
    });
    expect(await edit(erin, { players: { playerId: { $gt: '' } } })).toMatchObject({ status: 400 });
    expect(await edit(erin, {})).toMatchObject({ status: 400, body: { message: ROOM_MESSAGES.oneIntent } });
    expect(await edit(erin, { move: { number: 1 }, hack: 1 })).toMatchObject({ status: 400 });
    expect(
      (await s.call('PATCH', `/api/rooms/${room._id}/edit`, { body: { move: { number: 1 } } })).status,
    ).toBe(401);

    expect(await s.call('DELETE', `/api/rooms/${room._id}/delete`, { token: erin.token })).toMatchObject({
      status: 403,
      body: { message: ROOM_MESSAGES.notCreatorOrPlayer },
    });
    expect(await s.call('DELETE', `/api/rooms/${room._id}/delete`, { token: dave.token })).toMatchObject({
      status: 200,
      body: { message: ROOM_MESSAGES.deleted },
    });
    expect((await s.call('GET', `/api/rooms/${room._id}`)).status).toBe(404);
    await waitFor(
      async () => (await s.call('GET', '/api/rooms/mine', { token: dave.token })).status === 404,
      {
        what: 'the membership to go',
      },
    );
  });
});
