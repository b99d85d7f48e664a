import { setTimeout as sleep } from 'node:timers/promises';
import type { INestApplication } from '@nestjs/common';
import {
  AppError,
  Consumers,
  consumersOf,
  type DeadlineDueResponse,
  type EventEnvelope,
  EventTypes,
  type GameFinished,
  type MessageResponse,
  Requests,
  RetiredConsumers,
  RoomLogSubjects,
  ROOM_MESSAGES,
  type RoomPage,
  type OpenArenaRoomRequest,
  type OpenArenaRoomResponse,
  type OpenArenaRoomsResponse,
  type RoomView,
  type TokenClaims,
  Streams,
  TimerSubjects,
} from '@oasis198/contracts';
import {
  createService,
  decodeSchedule,
  makeEvent,
  Metrics,
  RpcClient,
  scheduleOf,
  VERSION_HEADER,
} from '@oasis198/service-kit';
import {
  expectAppError,
  recordEvents,
  recordPushes,
  type RecordedPush,
  type TestInfra,
  uniqueName,
  useTestInfra,
  waitFor,
} from '@oasis198/testing';
import { getModelToken } from '@nestjs/mongoose';
import { type Model, Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, type NatsConnection, RetentionPolicy } from 'nats';
import { roomsDefinition } from '../rooms.definition';
import { cryptoRandom } from './random';
import { eventsFor, hasLastState } from './room-events';
import { decodeEntry, RoomLog, type RoomLogEntry } from './room-log';
import { isUnchanged, planMove } from './room-transitions';
import { referenceAi, referenceCommit } from './room.fixtures';
import { ROOM_MODEL, type RoomRecord } from './room.schema';
import { toRoomView } from './room-view';
import { RoomsRepository } from './rooms.repository';
import { RoomsService } from './rooms.service';
import { roomsClient, roomsTestEnv, startRooms, testCaller } from './rooms.test-client';

const HEX64 = /^[0-9a-f]{64}$/;

// The rooms service on its own, over NATS request/reply, against real NATS and FerretDB.

/** What a replica's write does first (the commit point): a move appended to the room log, and nothing more. */
async function appendMove(log: RoomLog, roomId: string, playerId: string, number: number) {
  const logged = await log.last(roomId);
  if (!logged) throw new Error('the room is not in the log');
  const now = Date.now();
  const plan = planMove(logged.room, playerId, { number, option: 'plain' }, now, cryptoRandom);
  if (isUnchanged(plan)) throw new Error('the move changed nothing');
  const entry: RoomLogEntry = {
    room: plan.next,
    events: eventsFor(logged.room, plan, now, hasLastState(plan) ? toRoomView(plan.next, now) : null),
    deleted: false,
    listed: false,
  };
  return { entry, logged, seq: await log.append(entry, logged.seq) };
}

describe('rooms service', () => {
  // Outer scope: the servers outlive the service (inner afterAll runs first).
  const infra = useTestInfra();
  describe('over NATS', suite(infra));
});

function suite(infra: () => TestInfra) {
  return () => {
    let app: INestApplication;
    let rpc: RpcClient;
    let nc: NatsConnection;
    let env: Record<string, string>;

    const user = testCaller;
    /** Runs `test` with this suite's replica (a) and a second one (b) over the same database and log. */
    async function withSecondReplica(test: (a: RoomsService, b: RoomsService) => Promise<void>) {
      const { app: otherApp } = await createService(roomsDefinition, env);
      try {
        await test(app.get(RoomsService), otherApp.get(RoomsService));
      } finally {
        await otherApp.close();
      }
    }
    /** A 32 s room without passcode that `creator` opens on `service`. */
    const openRoom = (service: RoomsService, creator: ReturnType<typeof user>) =>
      service.create(creator, {
        gameType: 'quick-battle',
        createdBy: { id: creator.userId, name: creator.name },
        duration: 32,
        passCode: '',
      });
    const { call, create, edit, join, move } = roomsClient(() => rpc);
    const person = (caller: TokenClaims) => ({ id: caller.userId, name: caller.name });
    const arenaRoomId = () => randomBytes(12).toString('hex');
    /** What tournaments asks for a pairing: the room as rooms then shows it. */
    const openArena = async ([a, b]: [TokenClaims, TokenClaims]) => {
      const answer = await call<OpenArenaRoomResponse>(Requests.rooms.openArena, {
        roomId: arenaRoomId(),
        arenaId: 'event-9:0',
        players: [person(a), person(b)],
      });
      if (!answer.opened) throw new Error(`arena room not opened: ${answer.busy.join(', ')} busy`);
      return call<RoomView>(Requests.rooms.get, { roomId: answer.roomId });
    };

    /** Every event of a room stored in the GAMES stream since the service started, in stream order. */
    let gamesEvents: () => Promise<EventEnvelope[]>;
    const storedEvents = async (roomId: string): Promise<EventEnvelope[]> =>
      (await gamesEvents()).filter((event) => JSON.stringify(event.data).includes(roomId));

    /** The live pushes of a room since the service started, in the order they came. */
    let pushes: (roomId: string) => RecordedPush[];
    /** A room's pushes of its state (not its deletion) with `moves` moves in the game. */
    const pushesWithMoves = (roomId: string, moves: number) =>
      pushes(roomId).filter((push) => push.meta.type === 'room' && push.meta.moves === moves);

    /** The room's schedule in TIMERS: the version it was written for, and its deadlines. */
    async function scheduleOfRoom(roomId: string) {
      const jsm = await nc.jetstreamManager();
      const msg = await jsm.streams.getMessage(Streams.timers.name, {
        last_by_subj: TimerSubjects.schedule(roomId),
      });
      return { version: Number(msg.header.get(VERSION_HEADER)), schedule: decodeSchedule(msg.data) };
    }

    /** A room's last log message whole, as the projector gets it (with its change's events). */
    async function lastEntry(roomId: string): Promise<{ entry: RoomLogEntry; seq: number }> {
      const jsm = await nc.jetstreamManager();
      const msg = await jsm.streams.getMessage(Streams.roomLog.name, {
        last_by_subj: RoomLogSubjects.room(roomId),
      });
      return { entry: decodeEntry(msg.data), seq: msg.seq };
    }

    /** The room as MongoDB holds it (the projection). */
    const repositoryRoom = (roomId: string) => app.get(RoomsRepository).find(roomId);
    const roomModel = () => app.get<Model<RoomRecord>>(getModelToken(ROOM_MODEL));
    /** The room as the first page of the list shows it (the newest rooms). */
    const listedRoom = async (roomId: string) =>
      (await call<RoomPage>(Requests.rooms.list, { page: 1, freeSpot: false })).rooms.find(
        (r) => r._id === roomId,
      );
    /** Whether a durable consumer is done with every message: none waiting, none unacked. */
    const drained = async ({ stream, durable }: { stream: string; durable: string }) => {
      const jsm = await nc.jetstreamManager();
      const { num_pending, num_ack_pending } = await jsm.consumers.info(stream, durable);
      return num_pending === 0 && num_ack_pending === 0;
    };
    /** Whether the projector is done with every log message. */
    const projectorDone = () => drained(Consumers.roomsProjector);
    /** The room's events in GAMES, once there are any (rooms publishes only game.finished). */
    const publishedEvents = (roomId: string) =>
      waitFor(
        async () => {
          const all = await storedEvents(roomId);
          return all.length > 0 && all;
        },
        { what: 'game.finished' },
      );

    /** Database commands that write (or those named), as the service's driver counted them. */
    async function databaseWrites(
      commands = ['update', 'findAndModify', 'insert', 'delete'],
    ): Promise<number> {
      const { values } = await app.get(Metrics).databaseCommands.get();
      return values
        .filter(
          (v) =>
            v.metricName === 'oasis_db_command_duration_seconds_count' &&
            commands.includes(String(v.labels['command'])),
        )
        .reduce((sum, v) => sum + v.value, 0);
    }

    beforeAll(async () => {
      env = roomsTestEnv(infra(), 'rooms', { RETIRED_CONSUMERS_SWEEP_MS: '500' });
      ({ app, rpc } = await startRooms(env, 'rooms-test'));
      nc = await connect({ servers: infra().natsUrl });
      ({ events: gamesEvents } = await recordEvents(nc, Streams.games.name));
      ({ pushes } = recordPushes(nc));
    });

    afterAll(async () => {
      await rpc?.close();
      await nc?.close();
      await app?.close();
    });

    it('keeps GAMES for its readers: their consumers exist before its first event, and no retired one', async () => {
      const jsm = await nc.jetstreamManager();
      expect((await jsm.streams.info(Streams.games.name)).config.retention).toBe(RetentionPolicy.Interest);
      const readers = consumersOf(Streams.games.name);
      expect(readers.map((reader) => reader.durable).sort()).toEqual(
        [Consumers.rewardsGames, Consumers.rewardsHistory, Consumers.tournamentsGames]
          .map((c) => c.durable)
          .sort(),
      );
      for (const reader of readers) {
        const { config } = await jsm.consumers.info(reader.stream, reader.durable);
        expect([...(config.filter_subjects ?? [config.filter_subject])]).toEqual(reader.filterSubjects);
      }
      // A consumer an earlier release left (the timer's room events) would keep every room event
      // for ever: the next rooms replica to start deletes it.
      const [retired] = RetiredConsumers;
      await jsm.consumers.add(retired.stream, {
        durable_name: retired.durable,
        ack_policy: AckPolicy.Explicit,
        filter_subject: EventTypes.roomUpdated,
      });
      const { app: next } = await createService(roomsDefinition, env);
      await next.close();
      await expect(jsm.consumers.info(retired.stream, retired.durable)).rejects.toThrow(/not found/i);
      // Created again while rooms runs (a timer of the earlier release, mid-upgrade): swept again.
      await jsm.consumers.add(retired.stream, {
        durable_name: retired.durable,
        ack_policy: AckPolicy.Explicit,
        filter_subject: EventTypes.roomUpdated,
      });
      await waitFor(
        async () =>
          jsm.consumers.info(retired.stream, retired.durable).then(
            () => false,
            () => true,
          ),
        { what: 'the retired consumer swept again' },
      );
    });

    it("writes each change's deadlines as the room's schedule, and cancels it with the room", async () => {
      const alice = user('alice');
      const room = await create(alice);
      // One player waiting: the room expires WAITING_ROOM_EXPIRY after it started waiting.
      await waitFor(async () => (await scheduleOfRoom(room._id).catch(() => null))?.version === 1, {
        what: 'the new room schedule',
      });
      expect((await scheduleOfRoom(room._id)).schedule).toEqual(scheduleOf(room));
      expect((await scheduleOfRoom(room._id)).schedule?.deadlines.map((d) => d.kind)).toEqual(['waiting']);
      await call<MessageResponse>(Requests.rooms.delete, { caller: alice, roomId: room._id });
      await waitFor(async () => (await scheduleOfRoom(room._id)).version > 1, { what: 'the cancellation' });
      expect((await scheduleOfRoom(room._id)).schedule?.deadlines).toEqual([]);
    });

    it('creates a room with the creator as player 1, never showing its passcode', async () => {
      const alice = user('alice');
      const room = await create(alice, { passCode: '0420', duration: 60 });
      expect(room).toMatchObject({
        name: `Room ${room.roomNumber}`,
        createdBy: { id: alice.userId, name: 'alice' },
        players: [{ id: alice.userId, name: 'alice' }],
        hasPassCode: true,
        duration: 60,
        gameStarted: false,
        version: 1,
      });
      expect(JSON.stringify(room)).not.toContain('0420');
      expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({ _id: room._id });
      expect(await call<RoomView>(Requests.rooms.mine, { caller: alice })).toMatchObject({ _id: room._id });
      expect(await expectAppError(create(alice))).toEqual({
        code: 'CONFLICT',
        message: ROOM_MESSAGES.inAnotherRoom,
      });
      expect(
        await expectAppError(create(user('mallory'), { createdBy: { id: alice.userId, name: 'x' } })),
      ).toEqual({
        code: 'FORBIDDEN',
        message: ROOM_MESSAGES.identityMismatch,
      });
      expect(await expectAppError(call(Requests.rooms.get, { roomId: 'nope' }))).toEqual({
        code: 'NOT_FOUND',
        message: ROOM_MESSAGES.notFound,
      });
      await call<MessageResponse>(Requests.rooms.delete, { caller: alice, roomId: room._id });
      expect((await expectAppError(call(Requests.rooms.mine, { caller: alice }))).code).toBe('NOT_FOUND');
    });

    it('lists newest first, 8 a page, with the free-spot and game-type filters', async () => {
      const creators = Array.from({ length: 10 }, (_, i) => user(`lister${i}`));
      const rooms: RoomView[] = [];
      for (const [i, creator] of creators.entries()) {
        rooms.push(i === 0 ? await openArena([creator, user('arena')]) : await create(creator));
      }
      await join(user('joiner'), rooms[9]?._id ?? '');
      const first = await call<RoomPage>(Requests.rooms.list, { page: 1, freeSpot: false });
      expect(first.pageSize).toBe(8);
      expect(first.rooms).toHaveLength(8);
      expect(first.rooms[0]?._id).toBe(rooms[9]?._id);
      const numbers = first.rooms.map((r) => r.roomNumber);
      expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
      // A page past any offset the database takes is empty, with the total, never an error.
      for (const page of [3.6e307, Number.MAX_SAFE_INTEGER]) {
        expect(await call<RoomPage>(Requests.rooms.list, { page, freeSpot: false })).toMatchObject({
          rooms: [],
          page,
          total: first.total,
        });
      }
      const free = await call<RoomPage>(Requests.rooms.list, { page: 1, freeSpot: true });
      expect(free.rooms.every((r) => r.players.length === 1)).toBe(true);
      expect(free.rooms.map((r) => r._id)).not.toContain(rooms[9]?._id);
      const tournaments = await call<RoomPage>(Requests.rooms.list, {
        page: 1,
        freeSpot: false,
        gameType: 'tournament',
      });
      expect(tournaments.rooms.map((r) => r._id)).toEqual([rooms[0]?._id]);
      expect(JSON.stringify(first)).not.toMatch(/passCode"/);
    });

    it('opens an arena room once, seated and started, and refuses tournament rooms any other way', async () => {
      const [ann, ben, cat, dan] = [user('ann'), user('ben'), user('cat'), user('dan')];
      const room = await openArena([ann, ben]);
      expect(room).toMatchObject({ gameType: 'tournament', duration: 14, gameStarted: true });
      expect(room.players.map((p) => p.id)).toEqual([ann.userId, ben.userId]);
      // A retry of the same pairing opens nothing more.
      const again = await call<OpenArenaRoomResponse>(Requests.rooms.openArena, {
        roomId: room._id,
        arenaId: 'event-9:0',
        players: [person(ann), person(ben)],
      });
      expect(again).toEqual({ opened: true, roomId: room._id });
      expect((await call<RoomView>(Requests.rooms.get, { roomId: room._id })).roomNumber).toBe(
        room.roomNumber,
      );
      // A player in a quick battle is busy: nothing opens, and the other one is not held.
      const battle = await create(dan);
      const refused = {
        roomId: arenaRoomId(),
        arenaId: 'event-9:0',
        players: [person(cat), person(dan)],
      };
      const busy = await call<OpenArenaRoomResponse>(Requests.rooms.openArena, refused);
      expect(busy).toEqual({ opened: false, busy: [dan.userId] });
      expect((await expectAppError(call(Requests.rooms.mine, { caller: cat }))).code).toBe('NOT_FOUND');
      // The log decides a room once: asked again once Dan is free, it is still refused, and not there.
      await edit(dan, battle._id, { players: { playerId: dan.userId, removePlayer: true } });
      expect(await call<OpenArenaRoomResponse>(Requests.rooms.openArena, refused)).toEqual(busy);
      expect((await expectAppError(call(Requests.rooms.get, { roomId: refused.roomId }))).code).toBe(
        'NOT_FOUND',
      );
      expect((await expectAppError(call(Requests.rooms.mine, { caller: dan }))).code).toBe('NOT_FOUND');
      // By hand: no tournament room, and no second game in an arena room.
      expect((await expectAppError(create(cat, { gameType: 'tournament' }))).code).toBe('FORBIDDEN');
      await move(ann, room._id, 5);
      await move(ben, room._id, 5);
      await edit(ann, room._id, { players: { playerId: ann.userId, removePlayer: true } });
      // The finished arena room is gone with the leave; the next pairing seats Ben again.
      const next = await openArena([ben, cat]);
      expect(next.players.map((p) => p.id)).toEqual([ben.userId, cat.userId]);
      expect(
        (
          await expectAppError(
            edit(ben, next._id, { whosTurnReadyPlayer: { player1: { turn: false, restart: true } } }),
          )
        ).code,
      ).toBe('CONFLICT');
    });

    it("moves a paired player's membership out of their finished arena room into the next one", async () => {
      const [ann, ben, cat, dan] = [user('ann'), user('ben'), user('cat'), user('dan')];
      const room = await openArena([ann, ben]);
      let view = room;
      while (!view.gameOver) view = await move(view.whosTurn.player1.turn ? ann : ben, room._id, 9);
      // Both still sit in the finished room: Ben is paired again, Ann not yet.
      const next = await openArena([ben, cat]);
      expect(next.players.map((p) => p.id)).toEqual([ben.userId, cat.userId]);
      expect((await call<RoomView>(Requests.rooms.mine, { caller: ben }))._id).toBe(next._id);
      // His leave emptied the finished room of both: it is gone, and Ann is in no room.
      expect((await expectAppError(call(Requests.rooms.get, { roomId: room._id }))).code).toBe('NOT_FOUND');
      expect((await expectAppError(call(Requests.rooms.mine, { caller: ann }))).code).toBe('NOT_FOUND');
      expect((await openArena([ann, dan])).players.map((p) => p.id)).toEqual([ann.userId, dan.userId]);
      // A player seated in a running game is busy, though their membership points at a room.
      const busy = await call<OpenArenaRoomResponse>(Requests.rooms.openArena, {
        roomId: arenaRoomId(),
        arenaId: 'event-9:0',
        players: [person(cat), person(user('eve'))],
      });
      expect(busy).toEqual({ opened: false, busy: [cat.userId] });
    });

    it('opens a batch of arena rooms but the busy one, each once however often asked', async () => {
      const [ann, ben, cat, dan, eve, fay] = [
        user('ann'),
        user('ben'),
        user('cat'),
        user('dan'),
        user('eve'),
        user('fay'),
      ];
      await create(dan);
      const arenaRoom = (a: TokenClaims, b: TokenClaims): OpenArenaRoomRequest => ({
        roomId: arenaRoomId(),
        arenaId: 'event-9:0',
        players: [person(a), person(b)],
      });
      const [first, busy, third] = [arenaRoom(ann, ben), arenaRoom(cat, dan), arenaRoom(eve, fay)];
      const batch = { rooms: [first, busy, third] };
      const answer = await call<OpenArenaRoomsResponse>(Requests.rooms.openArena, batch);
      expect(answer.rooms).toEqual([
        { opened: true, roomId: first.roomId },
        { opened: false, busy: [dan.userId] },
        { opened: true, roomId: third.roomId },
      ]);
      // The busy room holds nobody; the opened ones have consecutive numbers.
      expect((await expectAppError(call(Requests.rooms.mine, { caller: cat }))).code).toBe('NOT_FOUND');
      const [one, two] = await Promise.all(
        [first, third].map((r) => call<RoomView>(Requests.rooms.get, { roomId: r.roomId })),
      );
      expect([one, two].map((r) => r?.players.map((p) => p.id))).toEqual([
        [ann.userId, ben.userId],
        [eve.userId, fay.userId],
      ]);
      expect((two?.roomNumber ?? 0) - (one?.roomNumber ?? 0)).toBe(1);
      // Asked again, twice at once (a lost answer, a resumed opening): nothing opens twice.
      const again = await Promise.all(
        [1, 2].map(() => call<OpenArenaRoomsResponse>(Requests.rooms.openArena, batch)),
      );
      for (const repeat of again) expect(repeat.rooms.map((r) => r.opened)).toEqual([true, false, true]);
      expect(await call<RoomView>(Requests.rooms.get, { roomId: first.roomId })).toMatchObject({
        roomNumber: one?.roomNumber,
        version: one?.version,
      });
      expect(await call<RoomView>(Requests.rooms.get, { roomId: third.roomId })).toMatchObject({
        roomNumber: two?.roomNumber,
        version: two?.version,
      });
      // After the arena's end: a room opened before it still answers opened; a new one opens not,
      // and holds nobody.
      const ended = Date.now() - 1;
      const late = { ...arenaRoom(cat, user('gus')), endsAt: ended };
      const afterEnd = await call<OpenArenaRoomsResponse>(Requests.rooms.openArena, {
        rooms: [{ ...first, endsAt: ended }, late],
      });
      expect(afterEnd.rooms).toEqual([
        { opened: true, roomId: first.roomId },
        { opened: false, busy: [], ended: true },
      ]);
      expect((await expectAppError(call(Requests.rooms.get, { roomId: late.roomId }))).code).toBe(
        'NOT_FOUND',
      );
      expect((await expectAppError(call(Requests.rooms.mine, { caller: cat }))).code).toBe('NOT_FOUND');
      // A player in two rooms of one batch is refused as a whole.
      const twice = { rooms: [busy, { ...busy, roomId: arenaRoomId() }] };
      expect((await expectAppError(call(Requests.rooms.openArena, twice))).code).toBe('VALIDATION');
    });

    it('answers two requests for one arena room alike, whichever of them the log took', async () => {
      await withSecondReplica(async (a, b) => {
        // Each room's second player leaves a quick battle as the two requests come (the leave a
        // few ms later for each room): the first request may find them busy while the second,
        // after the leave, opens the room.
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const [first, second] = [user(`first${i}`), user(`second${i}`)];
            const battle = await create(second);
            const request = {
              roomId: arenaRoomId(),
              arenaId: 'event-9:0',
              players: [first, second].map(person),
            };
            const answers = (await Promise.all([
              a.openArena(request),
              sleep(3 * i)
                .then(() =>
                  edit(second, battle._id, { players: { playerId: second.userId, removePlayer: true } }),
                )
                .then(() => b.openArena(request)),
            ])) as OpenArenaRoomResponse[];
            return { request, answers, first, second };
          }),
        );
        for (const { request, answers, first, second } of outcomes) {
          expect(answers[1]).toEqual(answers[0]);
          const mine = (caller: TokenClaims) =>
            call<RoomView>(Requests.rooms.mine, { caller }).then(
              (room) => room._id,
              () => null,
            );
          // Opened: both sit in it; refused: it is not there, and holds nobody.
          const seatedIn = answers[0]?.opened ? request.roomId : null;
          expect([await mine(first), await mine(second)]).toEqual([seatedIn, seatedIn]);
          if (!seatedIn) {
            const gone = await expectAppError(call(Requests.rooms.get, { roomId: request.roomId }));
            expect(gone.code).toBe('NOT_FOUND');
          }
        }
      });
    });

    it('checks the passcode, refuses a third player, and starts the game when the second joins', async () => {
      const [alice, bob, carol] = [user('alice'), user('bob'), user('carol')];
      const room = await create(alice, { passCode: '77' });
      expect(await expectAppError(join(bob, room._id, '78'))).toEqual({
        code: 'FORBIDDEN',
        message: 'Oops, try again!',
      });
      expect(await expectAppError(join(bob, room._id))).toEqual({
        code: 'FORBIDDEN',
        message: 'Oops, try again!',
      });
      const started = await join(bob, room._id, '77');
      expect(started.players.map((p) => p.id)).toEqual([alice.userId, bob.userId]);
      expect(started.whosTurn).toMatchObject({ gameStarted: true, gameNumber: 1, specialRandom: null });
      expect(started.whosTurn.player1.turn).toBe(true);
      expect((await join(bob, room._id, '77')).version).toBe(started.version);
      expect(await expectAppError(join(carol, room._id, '77'))).toEqual({
        code: 'ROOM_FULL',
        message: ROOM_MESSAGES.full,
      });
      // Carol's failed join left her free to play elsewhere.
      const hers = await create(carol);
      expect(hers.players[0]?.id).toBe(carol.userId);
    });

    it('gives exactly 2 players to 20 simultaneous joins; the others get a clear 409', async () => {
      const room = await create(user('host'));
      const joiners = Array.from({ length: 20 }, (_, i) => user(`racer${i}`));
      const results = await Promise.allSettled(joiners.map((j) => join(j, room._id)));
      const joined = results.filter((r) => r.status === 'fulfilled');
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as AppError] : []));
      expect(joined).toHaveLength(1);
      // Full (or, for a player who lost six races in a row, the room changed at the same moment).
      expect(refused.every((e) => e.code === 'ROOM_FULL' || e.code === 'CONFLICT')).toBe(true);
      const after = await call<RoomView>(Requests.rooms.get, { roomId: room._id });
      expect(after.players).toHaveLength(2);
      expect(after.version).toBe(2);
      // One change started the game: the one join the room log took, and the one pushed.
      await waitFor(async () => pushes(room._id).some((push) => push.meta.version === 2), {
        what: 'the join pushed',
      });
      const started = pushes(room._id).filter((push) => push.data['gameStarted'] === true);
      expect(started.map((push) => push.meta.version)).toEqual([2]);
    });

    it('applies one of two simultaneous moves; the other gets 409', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      const results = await Promise.allSettled([move(alice, room._id, 3), move(alice, room._id, 4)]);
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as AppError] : []));
      expect(ok).toHaveLength(1);
      expect(refused.map((e) => [e.code, e.message])).toEqual([['CONFLICT', 'It is not your turn.']]);
      const after = await call<RoomView>(Requests.rooms.get, { roomId: room._id });
      expect(after.whosTurn.moves).toHaveLength(1);
      expect(after.whosTurn.player2.turn).toBe(true);
      await waitFor(async () => pushesWithMoves(room._id, 1).length === 1, { what: 'the move pushed' });
      expect(pushes(room._id).map((push) => push.meta.version)).toEqual([1, 2, 3]);
    });

    it('judges a change again on the stored room when its replica holds an older copy', async () => {
      // Two replicas over the same database; each decides a change first on the room as it last
      // wrote it, which another replica may have changed meanwhile.
      await withSecondReplica(async (a, b) => {
        const [alice, bob] = [user('alice'), user('bob')];
        const room = await openRoom(a, alice);
        await a.edit(bob, room._id, { players: { playerId: bob.userId, playerName: bob.name } });
        // a's copy: version 2, alice to move. b plays alice's move: version 3, bob to move.
        await b.edit(alice, room._id, { move: { number: 3, option: 'plain' } });

        // By a's copy it is still alice's turn: the write it tries is refused by the version
        // guard, and the stored room says it is not her turn.
        await expect(a.edit(alice, room._id, { move: { number: 5, option: 'plain' } })).rejects.toMatchObject(
          {
            code: 'CONFLICT',
            message: 'It is not your turn.',
          },
        );
        // By a's copy it is not bob's turn, yet it is: judged again on the stored room, accepted.
        const { room: after } = await a.edit(bob, room._id, { move: { number: 4, option: 'plain' } });
        expect(after.version).toBe(4);
        expect(after.whosTurn.moves.map((m) => [m.player, m.number])).toEqual([
          ['player1', 3],
          ['player2', 4],
        ]);
        const stored = await call<RoomView>(Requests.rooms.get, { roomId: room._id });
        expect(stored.version).toBe(4);
        expect(stored.whosTurn.moves).toHaveLength(2);
      });
    });

    it('lets exactly one of two replicas apply the same move: the room log refuses the other, which reloads', async () => {
      // Both replicas decide on the same logged room (each holds it as it last logged it).
      await withSecondReplica(async (a, b) => {
        const [alice, bob] = [user('alice'), user('bob')];
        const room = await openRoom(a, alice);
        await b.edit(bob, room._id, { players: { playerId: bob.userId, playerName: bob.name } });
        await a.get(room._id); // a reads the room as b logged it; its own copy is version 1
        const results = await Promise.allSettled([
          a.edit(alice, room._id, { move: { number: 3, option: 'plain' } }),
          b.edit(alice, room._id, { move: { number: 4, option: 'plain' } }),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))).toEqual([
          expect.objectContaining({ code: 'CONFLICT', message: 'It is not your turn.' }),
        ]);
        const after = await call<RoomView>(Requests.rooms.get, { roomId: room._id });
        expect(after.version).toBe(3);
        expect(after.whosTurn.moves).toHaveLength(1);
        await waitFor(async () => (await listedRoom(room._id))?.version === 3, {
          what: 'the move in the list',
        });
        // Pushed once, by the replica whose append the log took.
        await waitFor(async () => pushesWithMoves(room._id, 1).length === 1, { what: 'the move pushed' });
        const [pushed] = pushesWithMoves(room._id, 1);
        expect(pushed?.data['whosTurn']).toMatchObject({ moves: [after.whosTurn.moves[0]] });
        expect(pushes(room._id).filter((push) => push.meta.version === 3)).toHaveLength(1);
      });
    });

    it('loses nothing of a change a replica appended and died before projecting: GET, lists and its schedule get it', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      // What a replica's write does first (the commit point), and then it is gone: no push, no projection.
      const log = new RoomLog(nc.jetstream(), await nc.jetstreamManager());
      const { logged, seq } = await appendMove(log, room._id, alice.userId, 7);
      expect(seq).toBeGreaterThan(logged.seq);
      // Another replica shows it at once...
      expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({
        version: 3,
        whosTurn: { currentNumber: 7 },
      });
      // ...the projector writes its deadlines, and lists show it (from the log: a move is not written to MongoDB).
      await waitFor(async () => (await scheduleOfRoom(room._id)).version === 3 && (await projectorDone()), {
        what: 'the move scheduled',
        timeoutMs: 10_000,
      });
      expect((await listedRoom(room._id))?.whosTurn.currentNumber).toBe(7);
      expect(pushesWithMoves(room._id, 1)).toEqual([]);
      // And play goes on from it.
      expect(await move(bob, room._id, 5)).toMatchObject({ version: 4, whosTurn: { currentNumber: 12 } });
    });

    it('hands its projector an entry it appended itself, once; any other message is decoded', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      const jsm = await nc.jetstreamManager();
      const log = new RoomLog(nc.jetstream(), jsm);
      const appended = async (playerId: string, number: number) => {
        const { entry, seq } = await appendMove(log, room._id, playerId, number);
        if (seq === null) throw new Error('the append lost a race');
        const { subject, data } = await jsm.streams.getMessage(Streams.roomLog.name, { seq });
        return { entry, msg: { seq, subject, data } };
      };
      const first = await appended(alice.userId, 3);
      expect(log.entryOf(first.msg)).toBe(first.entry);
      const again = log.entryOf(first.msg);
      expect(again).not.toBe(first.entry);
      // Decoded: the same room and events, but for the snapshot, which is that room (decodeEntry).
      const { events, ...logged } = first.entry;
      expect(JSON.parse(JSON.stringify(again))).toEqual(
        JSON.parse(
          JSON.stringify({ ...logged, events: events.filter((e) => e.type !== EventTypes.roomUpdated) }),
        ),
      );
      // The same sequence under another room's subject (a recreated stream) is not taken for it.
      const second = await appended(bob.userId, 4);
      expect(log.entryOf({ ...second.msg, subject: 'roomlog.another' })).not.toBe(second.entry);
      expect(log.entryOf(second.msg)).not.toBe(second.entry);
    });

    it('publishes nothing twice and rolls nothing back when the projector gets a message again', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      let view = await join(bob, room._id);
      view = await move(alice, room._id, 9);
      const old = await lastEntry(room._id);
      // 22 nines: the 22nd move, bob's, reaches 198 and finishes the game.
      while (!view.gameOver) view = await move(view.whosTurn.player1.turn ? alice : bob, room._id, 9);
      const latest = await lastEntry(room._id);
      expect(latest.entry.events.map((e) => e.type)).toContain(EventTypes.gameFinished);
      await waitFor(
        async () =>
          (await repositoryRoom(room._id))?.version === view.version &&
          (await scheduleOfRoom(room._id)).version === view.version &&
          (await storedEvents(room._id)).length === 1,
        { what: 'the game end projected, scheduled and published', timeoutMs: 10_000 },
      );
      const before = await storedEvents(room._id);
      expect(before.map((e) => e.type)).toEqual([EventTypes.gameFinished]);
      // Redelivered out of order (an older message after a newer one), and the newest once more.
      const projector = app.get(RoomsService).projector;
      await projector.project(old.entry, old.seq);
      await projector.project(latest.entry, latest.seq);
      await projector.project({ ...old.entry, listed: true }, old.seq); // written at once, if it could
      expect((await repositoryRoom(room._id))?.version).toBe(view.version);
      expect((await scheduleOfRoom(room._id)).version).toBe(view.version);
      expect((await storedEvents(room._id)).map((e) => e.id)).toEqual(before.map((e) => e.id));
    });

    it("purges a room's projected log messages but its last, and a closed room's whole subject after the notice; a late message brings no room back", async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      await move(alice, room._id, 3);
      await move(bob, room._id, 4);
      const jsm = await nc.jetstreamManager();
      const messagesOf = async (roomId: string) =>
        (await jsm.streams.info(Streams.roomLog.name, { subjects_filter: `roomlog.${roomId}` })).state
          .subjects?.[`roomlog.${roomId}`] ?? 0;
      const old = await lastEntry(room._id);
      await move(alice, room._id, 5);
      expect(await messagesOf(room._id)).toBe(5);
      const projector = app.get(RoomsService).projector;
      await waitFor(
        async () => {
          await projector.purge();
          return (await messagesOf(room._id)) === 1;
        },
        { what: 'the projected messages purged', timeoutMs: 10_000 },
      );
      // The room is its last message.
      expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({ version: 5 });
      expect(await move(bob, room._id, 1)).toMatchObject({ version: 6 });

      await call<MessageResponse>(Requests.rooms.delete, { caller: alice, roomId: room._id });
      await waitFor(
        async () => {
          await projector.purge();
          return (await messagesOf(room._id)) === 1;
        },
        { what: "the deleted room's older messages purged", timeoutMs: 10_000 },
      );
      // Its tombstone goes once the notice (ROOM_CLOSED_NOTICE_S, 600 s) is over, and not before.
      expect(await projector.sweepClosed()).toBe(0);
      expect(await messagesOf(room._id)).toBe(1);
      await projector.sweepClosed(Date.now() + 601_000);
      expect(await messagesOf(room._id)).toBe(0);
      expect((await expectAppError(call(Requests.rooms.get, { roomId: room._id }))).code).toBe('NOT_FOUND');
      // A message of the room handled again after it went (a redelivery): no room in the lists.
      await projector.project({ ...old.entry, listed: true }, old.seq);
      expect(await repositoryRoom(room._id)).toBeNull();
      expect((await expectAppError(call(Requests.rooms.get, { roomId: room._id }))).code).toBe('NOT_FOUND');
    });

    it('says why a room was closed to a GET for the notice, also after a restart; then the subject goes', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      await move(alice, room._id, 3);
      await edit(bob, room._id, { players: { playerId: bob.userId, removePlayer: true } });
      const jsm = await nc.jetstreamManager();
      const messagesOf = async (roomId: string) =>
        (await jsm.streams.info(Streams.roomLog.name, { subjects_filter: `roomlog.${roomId}` })).state
          .subjects?.[`roomlog.${roomId}`] ?? 0;
      const get = () =>
        call<RoomView>(Requests.rooms.get, { roomId: room._id }).catch((error: unknown) => error);
      const projector = app.get(RoomsService).projector;
      await waitFor(
        async () => {
          await projector.purge();
          return (await messagesOf(room._id)) === 1;
        },
        { what: 'the closed room purged but its tombstone', timeoutMs: 10_000 },
      );
      // A player whose stream missed the room-deleted push still learns why the room went.
      expect(await get()).toMatchObject({
        code: 'NOT_FOUND',
        message: ROOM_MESSAGES.notFound,
        details: { reason: 'left' },
      });
      // A replica started later (this one's memory gone) sweeps it once the notice is over.
      const { app: next } = await createService(roomsDefinition, env);
      try {
        const later = next.get(RoomsService).projector;
        expect(await later.sweepClosed(Date.now() + 300_000)).toBe(0);
        expect(await get()).toMatchObject({ code: 'NOT_FOUND', details: { reason: 'left' } });
        expect(await later.sweepClosed(Date.now() + 601_000)).toBeGreaterThanOrEqual(1);
      } finally {
        await next.close();
      }
      expect(await messagesOf(room._id)).toBe(0);
      const gone = await get();
      expect(gone).toMatchObject({ code: 'NOT_FOUND', message: ROOM_MESSAGES.notFound });
      expect((gone as AppError).details).toBeUndefined();
    });

    it('takes over a room stored before the room log: its left-over outbox events go out, and play goes on', async () => {
      // A room as the outbox design stored it, with the events of its last change unpublished (a crash).
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      const stored = await repositoryRoom(room._id);
      if (!stored) throw new Error('the room is not stored');
      const legacyId = new Types.ObjectId().toHexString();
      const legacy = { ...stored, _id: legacyId, players: [stored.createdBy], version: 1 };
      const event: EventEnvelope = {
        id: `room.updated:${legacyId}:1`,
        type: EventTypes.roomUpdated,
        occurredAt: new Date().toISOString(),
        data: { room: { ...room, _id: legacyId } },
      };
      await roomModel().collection.insertOne({
        ...legacy,
        whosTurn: JSON.stringify(legacy.whosTurn),
        outbox: { [`room_updated:${legacyId}:1`]: JSON.stringify(event) },
        outboxAt: new Date(Date.now() - 60_000),
      } as never);
      // A replica starting up publishes it once and empties the outbox.
      const { app: otherApp } = await createService(roomsDefinition, env);
      try {
        await waitFor(async () => (await storedEvents(legacyId)).some((e) => e.id === event.id), {
          what: 'the left-over event published',
        });
        await waitFor(
          async () => {
            const doc = await roomModel().collection.findOne({ _id: legacyId } as never);
            return doc?.['outboxAt'] === null && Object.keys(doc?.['outbox'] ?? {}).length === 0;
          },
          { what: 'the outbox emptied' },
        );
      } finally {
        await otherApp.close();
      }
      // Its first change is logged expecting no message yet, and it reads as logged from then on.
      const started = await join(bob, legacyId);
      expect(started).toMatchObject({ version: 2, gameStarted: true });
      expect(await call<RoomView>(Requests.rooms.get, { roomId: legacyId })).toMatchObject({ version: 2 });
      expect(await move(alice, legacyId, 2)).toMatchObject({ version: 3 });
    });

    it('writes a room change to MongoDB once: its projector skips what the service wrote before answering', async () => {
      await waitFor(projectorDone, { what: 'the projector done with earlier rooms' });
      const [alice, bob] = [user('alice'), user('bob')];
      const roomWrites = () => databaseWrites(['update']);
      const before = await roomWrites();
      const room = await create(alice);
      await join(bob, room._id);
      await waitFor(projectorDone, { what: 'the creation and the join projected' });
      // One write each, before the answer; the projector took both changes and wrote neither.
      expect((await roomWrites()) - before).toBe(2);
      expect(await repositoryRoom(room._id)).toMatchObject({ version: 2, playerCount: 2, gameStarted: true });
    });

    it('never writes a move to MongoDB, and lists show the room as its log has it', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id); // written at once: lists and Play now see who plays
      await waitFor(projectorDone, { what: 'the projector done with earlier rooms' });
      const writes = await databaseWrites();
      let view = await call<RoomView>(Requests.rooms.get, { roomId: room._id });
      for (let i = 0; i < 20; i++) {
        view = await move(view.whosTurn.player1.turn ? alice : bob, room._id, 1);
      }
      expect(view.version).toBe(22);
      // Every message acked once its deadlines are out: nothing waits for MongoDB.
      await waitFor(async () => (await scheduleOfRoom(room._id)).version === 22 && (await projectorDone()), {
        what: 'the last move scheduled and acked',
        timeoutMs: 10_000,
      });
      expect((await databaseWrites()) - writes).toBe(0);
      expect((await repositoryRoom(room._id))?.version).toBe(2);
      const listed = await listedRoom(room._id);
      expect(listed).toMatchObject({ version: 22, whosTurn: { currentNumber: 20 } });
      expect(listed?.whosTurn.moves).toHaveLength(20);
      // Each move pushed with that move alone: a push does not grow with the game.
      await waitFor(async () => pushesWithMoves(room._id, 20).length === 1, { what: 'the last move pushed' });
      const moved = pushes(room._id).filter((push) => push.meta.version > 2);
      expect(moved.map((push) => push.meta)).toEqual(
        Array.from({ length: 20 }, (_, i) => ({
          type: 'room',
          version: i + 3,
          gameNumber: 1,
          movesFrom: i,
          moves: i + 1,
        })),
      );
      for (const push of moved) {
        expect((push.data['whosTurn'] as RoomView['whosTurn']).moves).toHaveLength(1);
        expect(push.data['movesFrom']).toBe(push.meta.type === 'room' ? push.meta.movesFrom : -1);
      }
      // The game's end is a change lists see: written at once.
      await edit(bob, room._id, { players: { playerId: bob.userId, removePlayer: true } });
      expect(await repositoryRoom(room._id)).toBeNull();
    });

    it('answers the timer: not due yet, stale, and gone', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      const started = await join(bob, room._id);
      const request = {
        roomId: room._id,
        kind: 'turn',
        version: started.version,
        gameNumber: 1,
        moveIndex: 0,
      };
      expect(await call<DeadlineDueResponse>(Requests.rooms.deadline, request)).toEqual({
        applied: false,
        reason: 'not-due',
      });
      await move(alice, room._id, 5);
      expect(await call<DeadlineDueResponse>(Requests.rooms.deadline, request)).toEqual({
        applied: false,
        reason: 'stale-turn',
      });
      await edit(bob, room._id, { players: { playerId: bob.userId, removePlayer: true } });
      expect(await call<DeadlineDueResponse>(Requests.rooms.deadline, request)).toEqual({
        applied: false,
        reason: 'gone',
      });
    });

    it('ends a game that a player leaves and publishes it once; the watchers get the result, then the deletion', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      await join(bob, room._id);
      await move(alice, room._id, 9);
      await edit(bob, room._id, { players: { playerId: bob.userId, removePlayer: true } });
      expect((await expectAppError(call(Requests.rooms.get, { roomId: room._id }))).code).toBe('NOT_FOUND');
      await waitFor(async () => pushes(room._id).some((push) => push.meta.type === 'room-deleted'), {
        what: 'the deletion pushed',
      });
      expect(pushes(room._id).map((push) => [push.meta.type, push.meta.version])).toEqual([
        ['room', 1],
        ['room', 2],
        ['room', 3],
        ['room', 4],
        ['room-deleted', 5],
      ]);
      const [, , , ended, gone] = pushes(room._id);
      expect(ended?.data).toMatchObject({
        gameOver: true,
        whosTurn: { endReason: 'left', winner: 'player1' },
      });
      expect(gone?.data).toEqual({ roomId: room._id, version: 5, reason: 'left' });
      const events = await publishedEvents(room._id);
      expect(events.map((e) => e.type)).toEqual([EventTypes.gameFinished]);
      expect(events[0]?.data).toMatchObject({
        winner: { id: alice.userId, seat: 'player1' },
        loser: { id: bob.userId, seat: 'player2' },
        endReason: 'left',
        duration: 32,
        moves: 1,
      });
      // Both are free again.
      await create(alice);
      await create(bob);
    });

    it('takes a deleted account out of its room: a running game ends as if it left, a waiting room goes', async () => {
      const js = nc.jetstream();
      /** user.deleted as auth publishes it; another id, so a repeat is a new message. */
      const deleted = (userId: string) =>
        js.publish(
          EventTypes.userDeleted,
          JSON.stringify(makeEvent(EventTypes.userDeleted, uniqueName('event'), { userId })),
        );
      const gone = (roomId: string) => () =>
        call(Requests.rooms.get, { roomId }).then(
          () => false,
          (error) => error instanceof AppError && error.code === 'NOT_FOUND',
        );

      const [alice, bob, carol] = [user('alice'), user('bob'), user('carol')];
      const playing = await create(alice);
      await join(bob, playing._id);
      await move(alice, playing._id, 4);
      const waiting = await create(carol);
      await deleted(bob.userId);
      await deleted(carol.userId);
      await waitFor(gone(playing._id), { what: "the deleted player's game room gone" });
      await waitFor(gone(waiting._id), { what: "the deleted player's waiting room gone" });
      const finished = await publishedEvents(playing._id);
      expect(finished.map((e) => e.data)).toEqual([
        expect.objectContaining({
          winner: expect.objectContaining({ id: alice.userId }),
          loser: expect.objectContaining({ id: bob.userId }),
          endReason: 'left',
          moves: 1,
        }),
      ]);
      expect(pushes(waiting._id).at(-1)?.data).toMatchObject({ roomId: waiting._id, reason: 'empty' });
      // Again (a redelivery), and for an account in no room: nothing more, and each is acked.
      await deleted(bob.userId);
      await deleted(user('dave').userId);
      await waitFor(() => drained(Consumers.roomsUsers), { what: 'every user.deleted acked' });
      expect(await storedEvents(playing._id)).toHaveLength(1);
      // The one who stayed plays on elsewhere.
      await create(alice);
    });

    /** Every AI number of the game checks out against the revealed seed, by node:crypto alone. */
    function expectProvablyFair(view: RoomView, commitAtStart: string): void {
      const seed = view.aiSeed as string;
      expect(seed).toMatch(HEX64);
      expect(view.whosTurn.aiSeed).toBe(seed);
      expect(referenceCommit(seed)).toBe(commitAtStart);
      expect(view.aiCommit).toBe(commitAtStart);
      expect(view.whosTurn.moves.map((m) => m.aiNumber)).toEqual(
        view.whosTurn.moves.map((_, i) => referenceAi(seed, i)),
      );
    }

    it('commits to the AI seed from the start, reveals it only at the end, and every AI number checks out', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      expect(room).toMatchObject({ aiCommit: null, aiSeed: null });
      const started = await join(bob, room._id);
      const commit = started.aiCommit as string;
      expect(commit).toMatch(HEX64);
      expect(started).toMatchObject({ aiSeed: null, whosTurn: { aiCommit: commit, aiSeed: null } });
      let view = started;
      const options = ['double', 'extra', 'bonus', 'plain'];
      for (let i = 0; !view.gameOver; i++) {
        const mover = view.whosTurn.player1.turn ? alice : bob;
        // Double is offered below 73 only; extra and bonus there too.
        const option = view.whosTurn.currentNumber < 73 ? (options[i % options.length] as string) : 'plain';
        view = await move(mover, room._id, i % 3 === 0 ? 'random' : 9, option);
        expect(view.aiCommit).toBe(commit);
        if (!view.gameOver) expect(view.aiSeed).toBeNull();
      }
      expect(view.whosTurn.endReason).toBe('reached198');
      expectProvablyFair(view, commit);
      const seed = view.aiSeed as string;
      expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({ aiSeed: seed });

      // No push while the game ran carried the seed; the last one and game.finished reveal it.
      await waitFor(async () => pushes(room._id).some((push) => push.meta.version === view.version), {
        what: 'the last move pushed',
      });
      const pushed = pushes(room._id);
      expect(JSON.stringify(pushed.slice(0, -1))).not.toContain(seed);
      expect(pushed.at(-1)?.data).toMatchObject({ gameOver: true, aiSeed: seed });
      const events = await publishedEvents(room._id);
      expect(events.map((e) => e.type)).toEqual([EventTypes.gameFinished]);
      expect(events[0]?.data).toMatchObject({
        draw: false,
        aiSeed: seed,
        aiCommit: commit,
        moves: view.whosTurn.moves.length,
      });
    });

    it('ends a game kept below 198 as a draw at its 250th move, and Play Again follows', async () => {
      const [alice, bob] = [user('alice'), user('bob')];
      const room = await create(alice);
      const started = await join(bob, room._id);
      const commit = started.aiCommit as string;
      // Without knowing the AI numbers: plain 1s, and from 161 a minus of 9 (-18), which needs only
      // one of the 3 uses every player starts with each 19 moves. The total stays in 143..161.
      let view = started;
      while (!view.gameOver) {
        const mover = view.whosTurn.player1.turn ? alice : bob;
        view =
          view.whosTurn.currentNumber >= 161
            ? await move(mover, room._id, 9, 'minus')
            : await move(mover, room._id, 1, 'plain');
        expect(view.whosTurn.moves.length).toBeLessThanOrEqual(250);
      }
      expect(view.whosTurn.moves).toHaveLength(250);
      expect(view.whosTurn.currentNumber).toBeLessThan(198);
      expect(view).toMatchObject({
        gameOver: true,
        whosTurn: {
          gameOver: true,
          winner: null,
          endReason: 'moveLimit',
          deadline: null,
          player1: { turn: false },
          player2: { turn: false },
        },
      });
      expect(view.whosTurn.endedAt).toEqual(expect.any(Number));
      expectProvablyFair(view, commit);
      expect(await expectAppError(move(alice, room._id, 1))).toEqual({
        code: 'CONFLICT',
        message: 'The game is over.',
      });

      const finished = await waitFor(
        async () => (await storedEvents(room._id)).find((e) => e.type === EventTypes.gameFinished),
        { what: 'game.finished' },
      );
      expect(finished.data as GameFinished).toMatchObject({
        draw: true,
        winner: null,
        loser: null,
        endReason: 'moveLimit',
        player1: { id: alice.userId, name: 'alice' },
        player2: { id: bob.userId, name: 'bob' },
        moves: 250,
        aiSeed: view.aiSeed,
        aiCommit: commit,
      });

      // Play Again works after a draw as after any game over, with a fresh seed.
      await edit(bob, room._id, { whosTurnReadyPlayer: { player2: { turn: false, restart: true } } });
      const next = await edit(alice, room._id, {
        whosTurnReadyPlayer: { player1: { turn: false, restart: true } },
      });
      expect(next).toMatchObject({
        gameStarted: true,
        gameOver: false,
        aiSeed: null,
        whosTurn: { gameNumber: 2 },
      });
      expect(next.aiCommit).toMatch(HEX64);
      expect(next.aiCommit).not.toBe(commit);
    });
  };
}
