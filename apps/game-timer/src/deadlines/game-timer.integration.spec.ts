import type { INestApplication } from '@nestjs/common';
import {
  type DeadlineDueRequest,
  type DeadlineDueResponse,
  QueueGroups,
  Requests,
  type RoomView,
} from '@oasis198/contracts';
import { createService, ensureTimerStream, scheduleOf, ScheduleStore } from '@oasis198/service-kit';
import {
  roomView,
  sec,
  startedGame,
  type TestInfra,
  uniqueName,
  useTestInfra,
  waitFor,
} from '@oasis198/testing';
import { connect, JSONCodec, type JetStreamManager, type NatsConnection } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { gameTimerDefinition } from '../game-timer.definition';

// The game timer against a real NATS (its deadlines are JetStream message schedules; it has no
// database). The rooms service's two sides are stand-ins: its schedule writes, made with the same
// ScheduleStore as rooms, and its answers to rooms.deadline, which record every deadline sent.
describe('game timer', () => {
  const infra = useTestInfra({ mongo: false });
  describe('with a recording rooms service', suite(infra));
});

function suite(infra: () => TestInfra) {
  return () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let env: NodeJS.ProcessEnv;
    const apps: INestApplication[] = [];
    const received: { request: DeadlineDueRequest; at: number }[] = [];
    let answer: (request: DeadlineDueRequest) => DeadlineDueResponse = () => ({ applied: true });
    const codec = JSONCodec<{ id: string; data: DeadlineDueRequest }>();

    const startTimer = async () => {
      const { app } = await createService(gameTimerDefinition, env);
      apps.push(app);
      return app;
    };
    const stopTimer = async (app: INestApplication) => {
      apps.splice(apps.indexOf(app), 1);
      await app.close();
    };

    /** A room whose game started at startMs with turns of `duration` seconds. */
    const runningRoom = (roomId: string, version: number, startMs: number, duration = 14): RoomView =>
      roomView(startedGame(startMs, duration), { _id: roomId, version, duration });
    /** The turn of a 14 s room started at startMs is due at startMs + 19 s + 1 ms. */
    const startFor = (dueMs: number) => dueMs - 19 * sec - 1;

    /** A rooms replica writing schedules (each one remembers what it last wrote). */
    const roomsReplica = () => new ScheduleStore(nc, jsm, 500);
    let rooms: ScheduleStore;
    /** What rooms writes for a change that leaves the room as `room`. */
    const snapshot = (room: RoomView, writer = rooms) => writer.write(scheduleOf(room));
    const callsFor = (roomId: string) => received.filter((r) => r.request.roomId === roomId);
    /** Snapshots `count` rooms `<prefix>-<i>`, the turn of room i falling due at dueOf(i). */
    const snapshotRooms = (prefix: string, count: number, dueOf: (i: number) => number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          snapshot(runningRoom(`${prefix}-${i}`, 2, startFor(dueOf(i)))),
        ),
      );
    /** Waits until every one of those rooms had its deadline sent, once; resolves how late each was. */
    async function expectEachSentOnce(
      prefix: string,
      count: number,
      dueOf: (i: number) => number,
      timeoutMs: number,
    ) {
      const mine = () => received.filter((r) => r.request.roomId.startsWith(`${prefix}-`));
      await waitFor(async () => mine().length >= count, { timeoutMs, what: `${count} deadlines` });
      await sleep(500);
      expect(mine()).toHaveLength(count);
      expect(new Set(mine().map((r) => r.request.roomId)).size).toBe(count);
      return mine().map((r) => r.at - dueOf(Number(r.request.roomId.split('-').pop())));
    }

    beforeAll(async () => {
      nc = await connect({ servers: infra().natsUrl });
      jsm = await nc.jetstreamManager();
      await ensureTimerStream(jsm);
      rooms = roomsReplica();
      // The rooms service's side of rooms.deadline (NestJS's NATS packet format).
      const sub = nc.subscribe(Requests.rooms.deadline, { queue: QueueGroups.rooms });
      void (async () => {
        for await (const msg of sub) {
          const packet = codec.decode(msg.data);
          received.push({ request: packet.data, at: Date.now() });
          let reply: object;
          try {
            reply = { response: answer(packet.data) };
          } catch (error) {
            reply = { err: { code: 'UNAVAILABLE', message: (error as Error).message } };
          }
          msg.respond(JSONCodec().encode({ id: packet.id, ...reply, isDisposed: true }));
        }
      })();
      env = {
        NATS_URL: infra().natsUrl,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
      };
    });

    // A test that failed half-way must not leave its replicas taking the next test's deadlines.
    afterEach(async () => {
      answer = () => ({ applied: true });
      await Promise.all(apps.splice(0).map((app) => app.close()));
    });

    afterAll(async () => {
      await nc?.drain();
    });

    it('fires a turn timeout from a room schedule on time, and follows newer versions only', async () => {
      const timer = await startTimer();
      const roomId = uniqueName('room');
      const due = Date.now() + 3 * sec;
      await snapshot(runningRoom(roomId, 2, startFor(due)));
      // A move (version 3) moves the deadline 1 s on; then the old snapshot is redelivered.
      const later = due + sec;
      const moved = runningRoom(roomId, 3, startFor(later));
      moved.whosTurn.moves = [
        { player: 'player1', number: 3, option: 'plain', aiNumber: 4, total: 3, at: 0 },
      ];
      await snapshot(moved);
      // Another rooms replica writes version 2 late (a redelivered log message): it stays unwritten.
      expect(await snapshot(runningRoom(roomId, 2, startFor(due)), roomsReplica())).toBe('older');

      await waitFor(async () => callsFor(roomId).length > 0, { timeoutMs: 8 * sec, what: 'the timeout' });
      const [call] = callsFor(roomId);
      expect(call?.request).toEqual({ roomId, kind: 'turn', version: 3, gameNumber: 1, moveIndex: 1 });
      expect((call?.at ?? 0) - later).toBeGreaterThanOrEqual(0);
      expect((call?.at ?? 0) - later).toBeLessThan(500);
      await sleep(500);
      expect(callsFor(roomId)).toHaveLength(1);
      await stopTimer(timer);
    });

    it('fires a replaced schedule only at its new time, earlier or later', async () => {
      const timer = await startTimer();
      const [sooner, later] = [uniqueName('room'), uniqueName('room')];
      const due = Date.now() + 2500;
      await snapshot(runningRoom(sooner, 2, startFor(due)));
      await snapshot(runningRoom(later, 2, startFor(due)));
      // Version 3 of each: one brought forward by a second, one put back by a second.
      await snapshot(runningRoom(sooner, 3, startFor(due - sec)));
      await snapshot(runningRoom(later, 3, startFor(due + sec)));
      await waitFor(async () => callsFor(later).length > 0, { timeoutMs: 8 * sec, what: 'both timeouts' });
      await sleep(500);
      for (const [roomId, at] of [
        [sooner, due - sec],
        [later, due + sec],
      ] as const) {
        expect(callsFor(roomId).map((c) => c.request.version)).toEqual([3]);
        const late = (callsFor(roomId)[0]?.at ?? 0) - at;
        expect([roomId, late >= 0 && late < 500]).toEqual([roomId, true]);
      }
      await stopTimer(timer);
    });

    it('schedules the abandonment of the same turn when its timeout no longer applied', async () => {
      const timer = await startTimer();
      const roomId = uniqueName('room');
      // A turn whose timeout fell due 58.5 s ago (the timer was away): abandoned in 1.5 s.
      const abandonedDue = Date.now() + 1500;
      answer = (request) =>
        request.roomId === roomId && request.kind === 'turn'
          ? { applied: false, reason: 'stale-turn' }
          : { applied: true };
      await snapshot(runningRoom(roomId, 2, startFor(abandonedDue - 59 * sec + 1)));
      await waitFor(async () => callsFor(roomId).length >= 2, {
        timeoutMs: 8 * sec,
        what: 'the abandonment',
      });
      const [turn, abandoned] = callsFor(roomId);
      expect(turn?.request.kind).toBe('turn');
      expect(abandoned?.request).toEqual({
        roomId,
        kind: 'abandoned',
        version: 2,
        gameNumber: 1,
        moveIndex: 0,
      });
      expect((abandoned?.at ?? 0) - abandonedDue).toBeGreaterThanOrEqual(0);
      expect((abandoned?.at ?? 0) - abandonedDue).toBeLessThan(500);
      await sleep(500);
      expect(callsFor(roomId)).toHaveLength(2);
      await stopTimer(timer);
    });

    it('forgets a deleted room', async () => {
      const timer = await startTimer();
      const roomId = uniqueName('room');
      await snapshot(runningRoom(roomId, 2, startFor(Date.now() + 1500)));
      expect(await rooms.write({ roomId, version: 3, deadlines: [] })).toBe('cancelled');
      await sleep(2500);
      expect(callsFor(roomId)).toHaveLength(0);
      await stopTimer(timer);
    });

    it('fires once, on return, a deadline that fell due while the timer was down', async () => {
      let timer = await startTimer();
      const roomId = uniqueName('room');
      const due = Date.now() + 1500;
      await snapshot(runningRoom(roomId, 2, startFor(due)));
      await stopTimer(timer);
      await sleep(due - Date.now() + 1000);
      expect(callsFor(roomId)).toHaveLength(0);
      const restarted = Date.now();
      timer = await startTimer();
      await waitFor(async () => callsFor(roomId).length > 0, { what: 'the overdue timeout' });
      expect((callsFor(roomId)[0]?.at ?? 0) - restarted).toBeLessThan(2 * sec);
      await sleep(700);
      expect(callsFor(roomId)).toHaveLength(1);
      await stopTimer(timer);
    });

    it('retries while the rooms service cannot take a deadline, then sends it once', async () => {
      const timer = await startTimer();
      const roomId = uniqueName('room');
      let refusals = 0;
      answer = (request) => {
        if (request.roomId === roomId && refusals++ < 1) throw new Error('not now');
        return { applied: true };
      };
      await snapshot(runningRoom(roomId, 2, startFor(Date.now() + 500)));
      await waitFor(async () => callsFor(roomId).length >= 2, { timeoutMs: 8 * sec, what: 'a retry' });
      await sleep(1500);
      expect(callsFor(roomId)).toHaveLength(2);
      await stopTimer(timer);
    });

    it("keeps asking while the rooms service's clock, 4 s behind, says the turn is not due yet", async () => {
      const timer = await startTimer();
      const roomId = uniqueName('room');
      const due = Date.now() + 500;
      const skewMs = 4 * sec;
      answer = (request) => {
        if (request.roomId !== roomId) return { applied: true };
        return Date.now() - skewMs <= due ? { applied: false, reason: 'not-due' } : { applied: true };
      };
      await snapshot(runningRoom(roomId, 2, startFor(due)));
      await waitFor(async () => callsFor(roomId).some((c) => c.at - skewMs > due), {
        timeoutMs: 12 * sec,
        what: 'the timeout to be applied by the rooms clock',
      });
      const calls = callsFor(roomId);
      expect(calls.length).toBeGreaterThan(5);
      // Once due by the rooms service's clock, within the capped backoff (1 s, plus slack for a busy
      // machine; uncapped, half of 4 s of lateness would wait up to 2 s).
      expect((calls.at(-1)?.at ?? 0) - skewMs - due).toBeLessThan(1500);
      await sleep(1500);
      expect(callsFor(roomId)).toHaveLength(calls.length);
      await stopTimer(timer);
    });

    it('hands the deadlines a stopping replica holds to the other one, on time', async () => {
      const [a, b] = [await startTimer(), await startTimer()];
      const prefix = uniqueName('handover');
      const due = Date.now() + 2 * sec;
      await snapshotRooms(prefix, 40, () => due);
      // The schedules fire up to half a second early; each replica holds its share until due.
      await sleep(due - Date.now() - 150);
      await stopTimer(a);
      const lateness = await expectEachSentOnce(prefix, 40, () => due, 8 * sec);
      // Not early (the other replica holds them until due), and not after an ack wait (10 s): at once.
      expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...lateness)).toBeLessThan(sec);
      await stopTimer(b);
    });

    it('shares 200 deadlines between two replicas without sending any twice', async () => {
      const [a, b] = [await startTimer(), await startTimer()];
      const prefix = uniqueName('shared');
      const base = Date.now() + 2 * sec;
      const dueOf = (i: number) => base + i * 10;
      await snapshotRooms(prefix, 200, dueOf);
      const lateness = await expectEachSentOnce(prefix, 200, dueOf, 15 * sec);
      // Each on time: never early, and well within the server scheduler's 250 ms tick.
      expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...lateness)).toBeLessThan(250);
      await Promise.all([stopTimer(a), stopTimer(b)]);
    });
  };
}
