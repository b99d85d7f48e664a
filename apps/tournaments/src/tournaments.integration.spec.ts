import type { INestApplication } from '@nestjs/common';
import {
  AppError,
  type ArenaChanged,
  arenaChangedSubject,
  type ArenaPrizeRequest,
  type EventArenaResponse,
  EventTypes,
  type GameFinished,
  type GetRoomRequest,
  type OpenArenaRoomRequest,
  type OpenArenaRoomResponse,
  type OpenArenaRoomsRequest,
  QueueGroups,
  Requests,
  Streams,
  type TokenClaims,
} from '@oasis198/contracts';
import {
  createLogger,
  createService,
  JetStreamService,
  makeEvent,
  natsServers,
  RpcClient,
} from '@oasis198/service-kit';
import { serviceTestEnv, type TestInfra, uniqueName, useTestInfra, waitFor } from '@oasis198/testing';
import { MongoClient } from 'mongodb';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { entrantDoc } from './arena/arena.fixtures';
import { ArenaService } from './arena/arena.service';
import { tournamentsDefinition } from './tournaments.definition';

const EVERY_MS = 20_000;
const DURATION_MS = 12_000;
/** The longest rooms keeps the slow opening waiting (under the RPC timeout and the arena lease). */
const HOLD_MS = 2_500;

// Two tournaments replicas against a real NATS and database. The rooms and rewards services are
// stand-ins over NATS that record what they are asked (rooms opens every room; rewards pays), and
// the games' results are published to GAMES as rooms publishes them.
describe('tournaments', () => {
  const infra = useTestInfra();
  describe('an event-9 arena of four players', suite(infra));
  describe('an event-6 arena opened in batches after a replica died', batchSuite(infra));
  describe('an event-2 arena whose lease holder stalled mid-opening', leaseSuite(infra));
  describe('an event-6 arena paired before its start', earlySuite(infra));
});

function suite(infra: () => TestInfra) {
  return () => {
    let nc: NatsConnection;
    let rpc: RpcClient;
    let events: JetStreamService;
    const replicas: INestApplication[] = [];
    const opened: OpenArenaRoomRequest[] = [];
    const asked: OpenArenaRoomRequest[] = [];
    let releaseHeld = (): void => undefined;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    const refused: string[] = [];
    const prizes: ArenaPrizeRequest[] = [];
    /** The players each arena notice named as changed. */
    const notices: string[][] = [];
    const seatings: Record<string, string>[] = [];
    const codec = JSONCodec<{ id: string; data: unknown }>();

    /** The replicas' database. */
    let mongoUrl = '';
    /** Rooms asked for by rooms.get, and whether rooms had opened each. */
    const looked: Array<{ roomId: string; found: boolean }> = [];
    /** Rooms the stand-in has besides the ones it opened. */
    const known = new Set<string>();

    /**
     * A stand-in service: answers each request on `subject` with `answer` and records it; an
     * AppError thrown is answered as the service's error envelope.
     */
    const standIn = (subject: string, queue: string, answer: (data: never) => unknown) => {
      const sub = nc.subscribe(subject, { queue });
      void (async () => {
        for await (const msg of sub) {
          const packet = codec.decode(msg.data);
          void Promise.resolve()
            .then(() => answer(packet.data as never))
            .then(
              (response) => ({ id: packet.id, response, isDisposed: true }),
              (error: AppError) => ({
                id: packet.id,
                err: { code: error.code, message: error.message },
                isDisposed: true,
              }),
            )
            .then((reply) => msg.respond(JSONCodec().encode(reply)));
        }
      })();
    };

    beforeAll(async () => {
      nc = await connect({ servers: natsServers(infra().natsUrl) });
      nc.subscribe(arenaChangedSubject('event-9'), {
        callback: (_error, msg) => {
          const notice = JSONCodec<ArenaChanged>().decode(msg.data);
          notices.push(notice.players ?? []);
          if (notice.seats) seatings.push(notice.seats);
        },
      });
      // Two rounds open; from then on both players are busy elsewhere (a quick battle, say), which
      // rooms says after a while (its own writes on a busy machine). The third room asked is slow
      // to open: rooms answers once a fourth is asked, or after HOLD_MS.
      const openOne = async (request: OpenArenaRoomRequest): Promise<OpenArenaRoomResponse> => {
        const n = asked.push(request);
        if (n === 4) releaseHeld();
        if (n === 3) await Promise.race([held, sleep(HOLD_MS)]);
        if (opened.length >= 4) {
          await sleep(500);
          refused.push(request.roomId);
          return { opened: false, busy: request.players.map((p) => p.id) };
        }
        opened.push(request);
        return { opened: true, roomId: request.roomId };
      };
      standIn(Requests.rooms.openArena, QueueGroups.rooms, async (request: OpenArenaRoomsRequest) => ({
        rooms: await Promise.all(request.rooms.map(openOne)),
      }));
      standIn(Requests.rooms.get, QueueGroups.rooms, ({ roomId }: GetRoomRequest) => {
        const found = opened.some((r) => r.roomId === roomId) || known.has(roomId);
        looked.push({ roomId, found });
        if (!found) throw new AppError('NOT_FOUND', 'This room does not exist.');
        return { _id: roomId };
      });
      standIn(Requests.rewards.arenaPrize, QueueGroups.rewards, (request: ArenaPrizeRequest) => {
        prizes.push(request);
        return { outcome: 'paid' };
      });
      const env = serviceTestEnv(infra(), 'tournaments', {
        SHUTDOWN_GRACE_MS: '200',
        EVENT_2_EVERY_MS: '0',
        EVENT_6_EVERY_MS: '0',
        EVENT_9_EVERY_MS: String(EVERY_MS),
        EVENT_9_DURATION_MS: String(DURATION_MS),
        ARENA_TICK_MS: '50',
        // Longer than the slow opening: the lease holder keeps the lease while it waits for it.
        ARENA_LEASE_MS: '4000',
        // After the joins (see inPause): the four are paired in one round, before the start.
        ARENA_PAIR_BEFORE_START_MS: '2000',
      });
      mongoUrl = env['MONGO_URL'] ?? '';
      for (let i = 0; i < 2; i++) replicas.push((await createService(tournamentsDefinition, env)).app);
      rpc = await RpcClient.forTests(infra().natsUrl, 'tournaments-test', 5000);
      events = new JetStreamService(
        { servers: natsServers(infra().natsUrl), name: 'test' },
        createLogger('t', 'silent'),
      );
      await events.connect();
      await events.ensureStreams([Streams.games]);
    }, 120_000);

    afterAll(async () => {
      await rpc?.close();
      await events?.close();
      for (const app of replicas) await app.close();
      await nc?.close();
    }, 60_000);

    const caller = (name: string): TokenClaims => ({
      userId: uniqueName(name),
      name,
      jti: uniqueName('jti'),
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    const view = (who?: TokenClaims) =>
      rpc.request<EventArenaResponse>(Requests.tournaments.event, { eventId: 'event-9', caller: who });
    /** game.finished for an arena room, as rooms publishes it; `id` apart from the game's makes a redelivery. */
    const finish = (
      request: OpenArenaRoomRequest,
      result: 'first' | 'draw',
      id = `game.finished:${request.roomId}:1`,
    ) => {
      const [a, b] = request.players;
      const game: GameFinished =
        result === 'draw'
          ? { ...common(request), draw: true, winner: null, loser: null, endReason: 'moveLimit', moves: 250 }
          : {
              ...common(request),
              draw: false,
              winner: { ...a, seat: 'player1' },
              loser: { ...b, seat: 'player2' },
              endReason: 'reached198',
              moves: 30,
            };
      return events.publish(makeEvent(EventTypes.gameFinished, id, game));
    };
    const common = (request: OpenArenaRoomRequest) => ({
      gameId: `${request.roomId}:1`,
      roomId: request.roomId,
      gameNumber: 1,
      arenaId: request.arenaId,
      player1: request.players[0],
      player2: request.players[1],
      duration: 14,
      playedSeconds: 20,
      aiSeed: null,
      aiCommit: null,
      specialRandom: 123456,
      finishedAt: new Date().toISOString(),
    });

    it('pairs and re-pairs, scores each game once, survives a replica, and pays each place once', async () => {
      // Join while no arena runs: the next one starts within EVERY_MS - DURATION_MS.
      const inPause = () =>
        Date.now() % EVERY_MS >= DURATION_MS + 200 && Date.now() % EVERY_MS < EVERY_MS - 4000;
      await waitFor(async () => inPause(), { timeoutMs: EVERY_MS, what: 'a pause' });
      const players = ['ann', 'ben', 'cat', 'dan'].map(caller);
      for (const p of players)
        await rpc.request(Requests.tournaments.join, { eventId: 'event-9', caller: p });
      const before = await view(players[0]);
      expect(before).toMatchObject({ joined: true, arena: { status: 'upcoming' } });
      expect(before.arena?.standings).toHaveLength(4);
      // Each join's notice names its player: only that player's page asks for its own view again.
      const joinNotices = () => notices.filter((n) => n.length === 1);
      await waitFor(async () => joinNotices().length >= 4, { what: 'the notices of the joins' });
      expect(joinNotices()).toEqual(players.map((p) => [p.userId]));

      await waitFor(async () => opened.length >= 2, { timeoutMs: EVERY_MS, what: 'two arena rooms' });
      const [roomA, roomB] = opened as [OpenArenaRoomRequest, OpenArenaRoomRequest];
      expect(new Set([...roomA.players, ...roomB.players].map((p) => p.id)).size).toBe(4);
      // The player's page names the room once rooms has opened it: the openings' notice said so
      // to every replica, so while its pairing is still `opening` (its players are told before it
      // is marked playing) it is named without asking rooms.
      const seated = players.find((p) => p.userId === roomA.players[0].id);
      await waitFor(async () => (await view(seated)).roomId === roomA.roomId, { what: 'the room named' });
      const mongo = await MongoClient.connect(mongoUrl);
      const pairings = mongo.db().collection<{ _id: string; state: string }>('pairings');
      const entrants = mongo
        .db()
        .collection<{ _id: string; playerId: string; roomId: string | null }>('entrants');
      const seat = await entrants.findOne({ playerId: seated?.userId ?? '', roomId: roomA.roomId });
      const unheard = randomBytes(12).toString('hex');
      try {
        await pairings.updateOne({ _id: roomA.roomId }, { $set: { state: 'opening' } });
        const lookedBefore = looked.length;
        expect((await view(seated)).roomId).toBe(roomA.roomId);
        expect(looked).toHaveLength(lookedBefore);
        // A room no notice named (as for a replica that missed it): rooms is asked, and the room is
        // named only once rooms has it.
        await pairings.insertOne({
          ...(await pairings.findOne({ _id: roomA.roomId })),
          _id: unheard,
        } as never);
        await entrants.updateOne({ _id: seat?._id ?? '' }, { $set: { roomId: unheard } });
        expect((await view(seated)).roomId).toBeNull();
        expect(looked.at(-1)).toEqual({ roomId: unheard, found: false });
        known.add(unheard);
        expect((await view(seated)).roomId).toBe(unheard);
        expect(looked.at(-1)).toEqual({ roomId: unheard, found: true });
      } finally {
        await entrants.updateOne({ _id: seat?._id ?? '' }, { $set: { roomId: roomA.roomId } });
        await pairings.deleteOne({ _id: unheard });
        await pairings.updateOne({ _id: roomA.roomId }, { $set: { state: 'playing' } });
        await mongo.close();
      }
      // One notice for the round's batch names the players of both rooms.
      const roundPlayers = [...roomA.players, ...roomB.players].map((p) => p.id);
      await waitFor(async () => notices.some((n) => n.length === 4), { what: "the openings' notice" });
      expect(new Set(notices.find((n) => n.length === 4))).toEqual(new Set(roundPlayers));
      // It seats each of them in their own room: their pages go there without asking.
      expect(seatings.find((seats) => Object.keys(seats).length === 4)).toEqual(
        Object.fromEntries([roomA, roomB].flatMap((r) => r.players.map((p) => [p.id, r.roomId]))),
      );

      // A wins; A's result arrives twice (a redelivery) and scores once. A's players, the only ones
      // free, meet again in a room rooms is slow to open.
      await finish(roomA, 'first');
      await finish(roomA, 'first', 'redelivered');
      await waitFor(async () => asked.length >= 3, { timeoutMs: 10_000, what: "the slow room's opening" });
      expect(new Set(asked[2]?.players.map((p) => p.id))).toEqual(new Set(roomA.players.map((p) => p.id)));
      // B is a draw: its players are paired while that opening is still in hand, not after it.
      await finish(roomB, 'draw');
      await waitFor(async () => opened.length >= 4, { timeoutMs: 10_000, what: 'the second round' });
      expect(opened[2]?.players.map((p) => p.id)).toEqual(
        expect.arrayContaining(roomB.players.map((p) => p.id)),
      );
      expect(opened[3]?.roomId).toBe(asked[2]?.roomId);
      // Each replica, asked directly: neither answers with the ranking it kept from before the scores.
      const standings = (await view()).arena?.standings ?? [];
      for (const app of replicas) {
        expect((await app.get(ArenaService).event('event-9', undefined)).arena?.standings).toEqual(standings);
      }
      const winner = roomA.players[0].id;
      expect(standings[0]).toMatchObject({ playerId: winner, score: 2, wins: 1, games: 1 });
      expect(standings.map((s) => s.score).sort()).toEqual([0, 1, 1, 2]);
      // Each player is in one room of the second round (rematches are the unit tests' business:
      // two players freed while the others still play may meet again, as nobody else is free).
      const roundTwoPlayers = opened.slice(2, 4).flatMap((r) => r.players.map((p) => p.id));
      expect(new Set(roundTwoPlayers).size).toBe(4);

      // A replica stops mid-arena: the other one carries on.
      await replicas.shift()?.close();
      const roundTwo = opened.slice(2, 4);
      for (const room of roundTwo) await finish(room, 'first');

      // Their next pairings are refused (everyone busy): while rooms is asked, no page is sent to a
      // room that will not be there.
      const named = new Set<string>();
      await waitFor(
        async () => {
          for (const p of players) {
            const roomId = (await view(p)).roomId;
            if (roomId) named.add(roomId);
          }
          return refused.length >= 2;
        },
        { timeoutMs: 10_000, intervalMs: 20, what: 'two refused pairings' },
      );
      expect([...named].filter((id) => refused.includes(id))).toEqual([]);
      // Rooms was asked about rooms being opened, and the ones it had not opened were not named.
      expect(looked.filter((l) => !l.found).every((l) => !named.has(l.roomId))).toBe(true);

      // The end: final standings, each place paid once.
      await waitFor(async () => prizes.length >= 3, { timeoutMs: EVERY_MS + 5000, what: 'three prizes' });
      await sleep(1000);
      expect(prizes.map((p) => p.place).sort()).toEqual([1, 2, 3]);
      const final = (await view()).previous;
      expect(final?.status).toBe('ended');
      expect(prizes.find((p) => p.place === 1)?.playerId).toBe(final?.standings[0]?.playerId);
      expect(new Set(prizes.map((p) => p.arenaId)).size).toBe(1);
    }, 90_000);
  };
}

/** The arena's players as entrants; `roomId` seats one. */
const entrant = (arenaId: string, playerId: string, roomId: string | null, freeSince: number) =>
  entrantDoc(arenaId, playerId, { roomId, freeSince });

// A replica died mid-batch: some of its pairings had both seats, one had a seat taken by another
// pairing, and six players are free. The next replica resumes the first in one rooms request,
// gives the other up, and opens a round of three rooms in one request, through a lost answer and
// a busy player. One resumed room's game ends and is scored while rooms answers: it stays
// finished. Rooms is a stand-in over NATS, the database is real.
function batchSuite(infra: () => TestInfra) {
  return () => {
    let nc: NatsConnection;
    let mongo: MongoClient;
    let replica: INestApplication | undefined;
    const requests: OpenArenaRoomsRequest[] = [];
    const openedRooms = new Map<string, OpenArenaRoomRequest>();
    const codec = JSONCodec<{ id: string; data: OpenArenaRoomsRequest }>();

    afterAll(async () => {
      await replica?.close();
      await mongo?.close();
      await nc?.close();
    }, 60_000);

    it('resumes the openings left, opens a round in one request, and seats nobody twice', async () => {
      const { startsAt, arenaId, env } = await longArena(infra(), 6, {
        ARENA_BUSY_RETRY_MS: '60000',
        RPC_TIMEOUT_MS: '1000',
        ARENA_ROOMS_TIMEOUT_MS: '1000',
      });
      const name = (p: string) => `${p}-${startsAt}`;
      const id = () => randomBytes(12).toString('hex');
      const now = Date.now();
      const [resumedA, resumedB, scoredMeanwhile, half, other] = [id(), id(), id(), id(), id()];
      const pairing = (roomId: string, players: string[], state: string) => ({
        _id: roomId,
        arenaId,
        players: players.map((p) => ({ id: name(p), name: name(p) })),
        state,
        at: now - 60_000,
      });
      mongo = await MongoClient.connect(env['MONGO_URL'] ?? '');
      const db = mongo.db();
      await db
        .collection('pairings')
        .insertMany([
          pairing(resumedA, ['eve', 'fay'], 'opening'),
          pairing(resumedB, ['gus', 'hal'], 'opening'),
          pairing(scoredMeanwhile, ['lia', 'max'], 'opening'),
          pairing(half, ['ivy', 'jon'], 'opening'),
          pairing(other, ['kim', 'jon'], 'playing'),
        ] as never[]);
      const seats: Array<[string, string | null]> = [
        ['eve', resumedA],
        ['fay', resumedA],
        ['gus', resumedB],
        ['hal', resumedB],
        ['lia', scoredMeanwhile],
        ['max', scoredMeanwhile],
        ['ivy', half],
        ['jon', other],
        ['kim', other],
        ...['ann', 'ben', 'cat', 'dan', 'busy', 'lost'].map((p): [string, null] => [p, null]),
      ];
      // nia's seat was claimed, but its pairing never written (the replica stopped between the two).
      const orphan = id();
      await db.collection('entrants').insertMany([
        ...seats.map(([p, roomId]) => ({
          ...entrant(arenaId, name(p), roomId, now - 1000),
          ...(roomId && { seatedAt: now - 60_000 }),
        })),
        { ...entrant(arenaId, name('nia'), orphan, now - 1000), joined: false, seatedAt: now - 60_000 },
      ] as never[]);

      // Rooms: a room with `busy` in it is busy; the first request with `lost` in it is never answered.
      nc = await connect({ servers: natsServers(infra().natsUrl) });
      let lost = false;
      const sub = nc.subscribe(Requests.rooms.openArena, { queue: QueueGroups.rooms });
      void (async () => {
        for await (const msg of sub) {
          const { id: packetId, data } = codec.decode(msg.data);
          requests.push(data);
          const ids = data.rooms.flatMap((r) => r.players.map((p) => p.id));
          // The room was opened by the dead replica's request: its game ends and is scored now.
          if (data.rooms.some((r) => r.roomId === scoredMeanwhile)) {
            await db
              .collection<{ _id: string }>('pairings')
              .updateOne({ _id: scoredMeanwhile }, { $set: { state: 'finished' } });
          }
          if (!lost && ids.includes(name('lost'))) {
            lost = true;
            continue;
          }
          const rooms = data.rooms.map((r): OpenArenaRoomResponse => {
            const busy = r.players.filter((p) => p.id === name('busy')).map((p) => p.id);
            if (busy.length > 0) return { opened: false, busy };
            openedRooms.set(r.roomId, r);
            return { opened: true, roomId: r.roomId };
          });
          msg.respond(JSONCodec().encode({ id: packetId, response: { rooms }, isDisposed: true }));
        }
      })();
      replica = (await createService(tournamentsDefinition, env)).app;

      const state = async (roomId: string) =>
        (await db.collection<{ _id: string; state: string }>('pairings').findOne({ _id: roomId }))?.state;
      const seatOf = async (p: string) =>
        db.collection<{ _id: string; roomId: string | null; freeSince: number }>('entrants').findOne({
          _id: `${arenaId}|${name(p)}`,
        });
      const round = () =>
        requests.find((r) => r.rooms.some((x) => x.players.some((p) => p.id === name('lost'))));
      await waitFor(
        async () => (await state(resumedA)) === 'playing' && (await state(resumedB)) === 'playing',
        {
          timeoutMs: 10_000,
          what: 'the openings resumed',
        },
      );
      // Resumed in one request, those rooms and only them; the one scored meanwhile stays finished.
      const resumed = requests.filter((r) => r.rooms.some((x) => x.roomId === resumedA));
      expect(resumed.map((r) => r.rooms.map((x) => x.roomId).sort())).toEqual([
        [resumedA, resumedB, scoredMeanwhile].sort(),
      ]);
      expect(await state(scoredMeanwhile)).toBe('finished');
      // Each room asked for carries its arena's end, from the schedule, as rooms refuses it after.
      expect(new Set(requests.flatMap((r) => r.rooms.map((x) => x.endsAt)))).toEqual(
        new Set([startsAt + LONG_EVERY_MS - 1000]),
      );
      // After the arena's end, a player still in a game it paired is sent to that game's room.
      const afterEnd = startsAt + LONG_EVERY_MS - 500;
      const eve = { userId: name('eve'), name: name('eve'), jti: 'j', exp: afterEnd / 1000 + 60 };
      const between = await replica?.get(ArenaService).event('event-6', eve, afterEnd);
      expect(between).toMatchObject({ joined: false, roomId: resumedA, arena: { status: 'upcoming' } });
      // The pairing whose other seat was taken is given up; its seated player is freed, the other keeps theirs.
      expect(await state(half)).toBe('failed');
      expect((await seatOf('ivy'))?.roomId).not.toBe(half);
      expect((await seatOf('jon'))?.roomId).toBe(other);
      // The seat without a pairing is freed; every seat with one is kept.
      await waitFor(async () => (await seatOf('nia'))?.roomId === null, { what: 'the orphan seat freed' });
      expect(requests.flatMap((r) => r.rooms.map((x) => x.roomId))).not.toContain(half);

      // The six free ones: three rooms in one request, asked again with the same rooms when its
      // answer was lost; the busy pair freed, the busy player after ARENA_BUSY_RETRY_MS.
      await waitFor(async () => requests.filter((r) => r === round() || sameRooms(r, round())).length >= 2, {
        timeoutMs: 10_000,
        what: 'the lost request asked again',
      });
      const asked = requests.filter((r) => sameRooms(r, round()));
      expect(asked).toHaveLength(2);
      expect(asked[0]?.rooms).toHaveLength(3);
      expect(new Set(asked[0]?.rooms.flatMap((r) => r.players.map((p) => p.id)))).toEqual(
        new Set(['ann', 'ben', 'cat', 'dan', 'busy', 'lost'].map(name)),
      );
      const busyRoom = asked[0]?.rooms.find((r) => r.players.some((p) => p.id === name('busy')));
      const partner = busyRoom?.players.find((p) => p.id !== name('busy'))?.id ?? '';
      await waitFor(async () => (await state(busyRoom?.roomId ?? '')) === 'failed', {
        what: 'the busy pair freed',
      });
      const busy = await seatOf('busy');
      expect(busy?.roomId).toBeNull();
      expect(busy?.freeSince).toBeGreaterThan(Date.now() + 30_000);
      for (const room of asked[0]?.rooms ?? []) {
        if (room !== busyRoom) expect(await state(room.roomId)).toBe('playing');
      }
      // The busy one's partner and the freed ivy meet in the next round.
      await waitFor(
        async () =>
          [...openedRooms.values()].some((r) =>
            r.players.every((p) => [partner, name('ivy')].includes(p.id)),
          ),
        { timeoutMs: 10_000, what: "the freed players' room" },
      );

      // Nobody was seated in two rooms: each player is in one opened room at most.
      const players = [...openedRooms.values()].flatMap((r) => r.players.map((p) => p.id));
      expect(players.length).toBe(new Set(players).size);
      // Each seated player's entrant names the room opened for them.
      for (const room of openedRooms.values()) {
        for (const p of room.players)
          expect((await seatOf(p.id.replace(`-${startsAt}`, '')))?.roomId).toBe(room.roomId);
      }
    }, 60_000);
  };
}

// The lease holder's first request to rooms gets no answer, and meanwhile another owner takes
// the lease (as when the holder stalls): the replica asks rooms nothing more until it holds the
// lease again, and then resumes the opening once its two asks would be over. Rooms is a stand-in
// over NATS, the database is real.
function leaseSuite(infra: () => TestInfra) {
  return () => {
    let nc: NatsConnection;
    let mongo: MongoClient;
    let replica: INestApplication | undefined;

    afterAll(async () => {
      await replica?.close();
      await mongo?.close();
      await nc?.close();
    }, 60_000);

    it('asks rooms for a room only while it holds the lease', async () => {
      const { startsAt, arenaId, env } = await longArena(infra(), 2, {
        ARENA_LEASE_MS: '1000',
        ARENA_ROOMS_TIMEOUT_MS: '1000',
      });
      const players = ['una', 'vic'].map((p) => `${p}-${startsAt}`);
      mongo = await MongoClient.connect(env['MONGO_URL'] ?? '');
      const db = mongo.db();
      await db
        .collection('entrants')
        .insertMany(players.map((p) => entrant(arenaId, p, null, Date.now() - 1000)) as never[]);
      const leases = db.collection<{ _id: string; owner: string; until: number }>('leases');

      // Rooms: the first request is never answered, and when it comes another owner takes the lease.
      nc = await connect({ servers: natsServers(infra().natsUrl) });
      const requests: OpenArenaRoomsRequest[] = [];
      const codec = JSONCodec<{ id: string; data: OpenArenaRoomsRequest }>();
      const sub = nc.subscribe(Requests.rooms.openArena, { queue: QueueGroups.rooms });
      void (async () => {
        for await (const msg of sub) {
          const { id: packetId, data } = codec.decode(msg.data);
          requests.push(data);
          if (requests.length === 1) {
            await leases.updateOne(
              { _id: 'arena-runner' },
              { $set: { owner: 'another replica', until: Date.now() + 60_000 } },
            );
            continue;
          }
          const rooms = data.rooms.map((r): OpenArenaRoomResponse => ({ opened: true, roomId: r.roomId }));
          msg.respond(JSONCodec().encode({ id: packetId, response: { rooms }, isDisposed: true }));
        }
      })();
      replica = (await createService(tournamentsDefinition, env)).app;

      await waitFor(async () => requests.length === 1, { timeoutMs: 10_000, what: 'the first opening' });
      const roomId = requests[0]?.rooms[0]?.roomId ?? '';
      const state = async () =>
        (await db.collection<{ _id: string; state: string }>('pairings').findOne({ _id: roomId }))?.state;
      // A holder would ask again 1 s after the first request; this replica lost the lease.
      await sleep(2500);
      expect(requests).toHaveLength(1);
      expect(await state()).toBe('opening');

      // The lease free again: the replica takes it and resumes the opening, the same room.
      await leases.updateOne({ _id: 'arena-runner' }, { $set: { until: 0 } });
      await waitFor(async () => (await state()) === 'playing', {
        timeoutMs: 15_000,
        what: 'the opening resumed',
      });
      expect(requests.map((r) => r.rooms.map((x) => x.roomId))).toEqual([[roomId], [roomId]]);
      expect(new Set(requests[1]?.rooms[0]?.players.map((p) => p.id))).toEqual(new Set(players));
    }, 60_000);
  };
}

/** Every ten minutes, all but its last second: the other events' arenas are off. */
const LONG_EVERY_MS = 600_000;

/**
 * Waits until the long arenas of `event` run with 20 s left at least, and gives the running
 * one and a replica's environment for them, with a 50 ms tick and `overrides`.
 */
async function longArena(infra: TestInfra, event: 2 | 6 | 9, overrides: Record<string, string>) {
  await waitFor(async () => Date.now() % LONG_EVERY_MS < LONG_EVERY_MS - 20_000, {
    timeoutMs: 25_000,
    what: 'a running arena',
  });
  const startsAt = Math.floor(Date.now() / LONG_EVERY_MS) * LONG_EVERY_MS;
  const env = serviceTestEnv(infra, 'tournaments', {
    SHUTDOWN_GRACE_MS: '200',
    ...Object.fromEntries(
      [2, 6, 9].map((n) => [`EVENT_${n}_EVERY_MS`, n === event ? String(LONG_EVERY_MS) : '0']),
    ),
    [`EVENT_${event}_DURATION_MS`]: String(LONG_EVERY_MS - 1000),
    ARENA_TICK_MS: '50',
    ...overrides,
  });
  return { startsAt, arenaId: `event-${event}:${startsAt}`, env };
}

/** Whether two requests ask for the same rooms. */
function sameRooms(a?: OpenArenaRoomsRequest, b?: OpenArenaRoomsRequest): boolean {
  const ids = (r?: OpenArenaRoomsRequest) => JSON.stringify(r?.rooms.map((x) => x.roomId).sort() ?? null);
  return a !== undefined && b !== undefined && ids(a) === ids(b);
}

/**
 * The stand-in rooms of earlySuite: opens every room asked, and records each request and when;
 * `rooms.get` finds the rooms it opened.
 */
function openingRooms(nc: NatsConnection, requests: Array<{ at: number; request: OpenArenaRoomsRequest }>) {
  const codec = JSONCodec<{ id: string; data: OpenArenaRoomsRequest }>();
  const sub = nc.subscribe(Requests.rooms.openArena, { queue: QueueGroups.rooms });
  void (async () => {
    for await (const msg of sub) {
      const { id, data } = codec.decode(msg.data);
      requests.push({ at: Date.now(), request: data });
      const rooms = data.rooms.map((r): OpenArenaRoomResponse => ({ opened: true, roomId: r.roomId }));
      msg.respond(JSONCodec().encode({ id, response: { rooms }, isDisposed: true }));
    }
  })();
  const gets = nc.subscribe(Requests.rooms.get, { queue: QueueGroups.rooms });
  void (async () => {
    for await (const msg of gets) {
      const { id, data } = JSONCodec<{ id: string; data: GetRoomRequest }>().decode(msg.data);
      const found = requests.some((r) => r.request.rooms.some((room) => room.roomId === data.roomId));
      const reply = found
        ? { id, response: { _id: data.roomId }, isDisposed: true }
        : { id, err: { code: 'NOT_FOUND', message: 'This room does not exist.' }, isDisposed: true };
      msg.respond(JSONCodec().encode(reply));
    }
  })();
}

// Players who joined before the start are paired, and their seats claimed, before it; rooms is
// asked at the start, and not for a pairing whose player left meanwhile.
function earlySuite(infra: () => TestInfra) {
  return () => {
    let nc: NatsConnection;
    let mongo: MongoClient;
    let rpc: RpcClient;
    let env: Record<string, string>;
    let replica: INestApplication | undefined;
    const requests: Array<{ at: number; request: OpenArenaRoomsRequest }> = [];
    type Entrant = { _id: string; playerId: string; joined: boolean; roomId: string | null };
    const pairingState = async (roomId: string) =>
      (await mongo.db().collection<{ _id: string; state: string }>('pairings').findOne({ _id: roomId }))
        ?.state;

    beforeAll(async () => {
      env = serviceTestEnv(infra(), 'tournaments', {
        SHUTDOWN_GRACE_MS: '200',
        EVENT_2_EVERY_MS: '0',
        EVENT_9_EVERY_MS: '0',
        EVENT_6_EVERY_MS: String(EVERY_MS),
        EVENT_6_DURATION_MS: String(DURATION_MS),
        ARENA_TICK_MS: '50',
        ARENA_PAIR_BEFORE_START_MS: '3000',
      });
      nc = await connect({ servers: natsServers(infra().natsUrl) });
      openingRooms(nc, requests);
      replica = (await createService(tournamentsDefinition, env)).app;
      rpc = await RpcClient.forTests(infra().natsUrl, 'tournaments-early-test', 5000);
      mongo = await MongoClient.connect(env['MONGO_URL'] ?? '');
    }, 60_000);

    afterAll(async () => {
      await replica?.close();
      await rpc?.close();
      await mongo?.close();
      await nc?.close();
    }, 60_000);

    /**
     * Joins the named players in the pause between two arenas, before the next one's pairing
     * begins; their entries by player, and the next arena's start.
     */
    const joinBeforeStart = async (names: string[]) => {
      await waitFor(
        async () => Date.now() % EVERY_MS >= DURATION_MS + 200 && Date.now() % EVERY_MS < EVERY_MS - 5000,
        { timeoutMs: EVERY_MS, what: 'a pause' },
      );
      const startsAt = Math.ceil(Date.now() / EVERY_MS) * EVERY_MS;
      const players = names.map((name) => ({
        userId: uniqueName(name),
        name,
        jti: uniqueName('jti'),
        exp: Math.floor(Date.now() / 1000) + 3600,
      }));
      for (const caller of players)
        await rpc.request(Requests.tournaments.join, { eventId: 'event-6', caller });
      const ids = players.map((p) => p.userId);
      const seats = async () =>
        new Map(
          (
            await mongo
              .db()
              .collection<Entrant>('entrants')
              .find({ playerId: { $in: ids } })
              .toArray()
          ).map((e) => [e.playerId, e]),
        );
      return { players, seats, startsAt };
    };

    it('claims the seats before the start, asks rooms at the start, and leaves out who left', async () => {
      const { players, seats, startsAt } = await joinBeforeStart(['gil', 'hal', 'ivy', 'jon']);

      // Before the start: all four seated in two rooms, and rooms not asked yet.
      await waitFor(async () => [...(await seats()).values()].filter((e) => e.roomId).length === 4, {
        timeoutMs: 10_000,
        what: 'four seats claimed',
      });
      expect(Date.now()).toBeLessThan(startsAt);
      expect(new Set([...(await seats()).values()].map((e) => e.roomId)).size).toBe(2);
      expect(requests).toHaveLength(0);

      // One of them leaves before the start: their room is not asked for, and both are freed.
      const leaver = players[0];
      await rpc.request(Requests.tournaments.leave, { eventId: 'event-6', caller: leaver });
      const leaverRoom = (await seats()).get(leaver?.userId ?? '')?.roomId ?? '';
      expect(Date.now()).toBeLessThan(startsAt);

      await waitFor(async () => requests.length >= 1, { timeoutMs: 10_000, what: 'rooms asked' });
      expect(requests[0]?.at).toBeGreaterThanOrEqual(startsAt);
      const asked = requests.flatMap((r) => r.request.rooms);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.roomId).not.toBe(leaverRoom);
      expect(asked[0]?.players.map((p) => p.id)).not.toContain(leaver?.userId);
      await waitFor(async () => [...(await seats()).values()].every((e) => e.roomId !== leaverRoom), {
        timeoutMs: 5_000,
        what: "the leaver's room given up",
      });
      expect((await seats()).get(leaver?.userId ?? '')).toMatchObject({ joined: false, roomId: null });
      expect(await pairingState(leaverRoom)).toBe('failed');
    }, 60_000);

    it('gives up its waiting pairings when it stops, and the next replica pairs them again', async () => {
      const { seats, startsAt } = await joinBeforeStart(['kim', 'lou']);
      await waitFor(async () => [...(await seats()).values()].filter((e) => e.roomId).length === 2, {
        timeoutMs: 10_000,
        what: 'two seats claimed',
      });
      const early = [...(await seats()).values()][0]?.roomId ?? '';
      const askedBefore = requests.length;

      await replica?.close();
      replica = undefined;
      expect(Date.now()).toBeLessThan(startsAt);
      expect(await pairingState(early)).toBe('failed');
      expect([...(await seats()).values()].map((e) => e.roomId)).toEqual([null, null]);

      replica = (await createService(tournamentsDefinition, env)).app;
      await waitFor(async () => requests.length > askedBefore, { timeoutMs: 10_000, what: 'rooms asked' });
      const room = requests.at(-1)?.request.rooms[0];
      expect(room?.roomId).not.toBe(early);
      expect(new Set(room?.players.map((p) => p.id))).toEqual(new Set((await seats()).keys()));
      expect(requests.at(-1)?.at).toBeGreaterThanOrEqual(startsAt);
    }, 60_000);
  };
}
