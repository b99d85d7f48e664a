import { eventSchemas, EventTypes, type GameFinished, type RoomSnapshot } from '@oasis198/contracts';
import { MOVE_LIMIT } from '@oasis198/game-rules';
import { pendingEvents } from '@oasis198/service-kit';
import {
  alice,
  bob,
  fixedRandom,
  fixedSeeds,
  playBelow198,
  referenceCommit,
  SEED,
  T0,
  waitingRoom,
} from './room.fixtures';
import type { RoomRecord } from './room.schema';
import { eventsFor, hasLastState } from './room-events';
import { isUnchanged, type Plan, planJoin, planLeave, planMove, type Transition } from './room-transitions';
import { toRoomView } from './room-view';

const changed = (plan: Plan): Transition => {
  if (isUnchanged(plan)) throw new Error('expected a change');
  return plan;
};

function started(): RoomRecord {
  return changed(planJoin(waitingRoom({ passCode: '4321' }), bob, '4321', T0, fixedRandom())).next;
}

/** The events of a change, with the view the service builds for its last state. */
const eventsOf = (prev: RoomRecord | null, change: Transition, nowMs: number) =>
  eventsFor(prev, change, nowMs, hasLastState(change) ? toRoomView(change.next, nowMs) : null);

/** As the outbox relay would publish them: by occurredAt, then id. */
const publishedOrder = (events: ReturnType<typeof eventsFor>) =>
  pendingEvents({ outbox: Object.fromEntries(events.map((e, i) => [String(i), e])) }).map((e) => e.type);

describe('eventsFor', () => {
  it('announces a new room with its snapshot', () => {
    const room = waitingRoom();
    const events = eventsOf(null, { next: room }, T0);
    expect(events.map((e) => e.id)).toEqual([`room.created:${room._id}`]);
  });

  it('logs only the snapshot when the second player joins and the game starts (game.started has no reader)', () => {
    const room = waitingRoom();
    const change = changed(planJoin(room, bob, undefined, T0, fixedRandom()));
    const events = eventsOf(room, change, T0);
    expect(events.map((e) => e.id)).toEqual([`room.updated:${room._id}:2`]);
  });

  it('logs the result, then the snapshot, and no move.made; every event as its schema says', () => {
    const waiting = waitingRoom();
    const join = changed(planJoin(waiting, bob, undefined, T0, fixedRandom()));
    const all = [...eventsOf(null, { next: waiting }, T0), ...eventsOf(waiting, join, T0)];
    let room = join.next;
    let now = T0;
    let last: ReturnType<typeof eventsFor> = [];
    while (!room.whosTurn.gameOver) {
      now += 1000;
      const mover = room.whosTurn.player1.turn ? alice : bob;
      const change = changed(planMove(room, mover.id, { number: 9, option: 'plain' }, now, fixedRandom()));
      last = eventsOf(room, change, now);
      all.push(...last);
      room = change.next;
    }
    // What consumers parse: exactly what was published, nothing dropped or defaulted.
    for (const event of all) expect(eventSchemas[event.type].parse(event.data)).toEqual(event.data);
    expect(new Set(all.map((event) => event.type))).toEqual(
      new Set([EventTypes.roomCreated, EventTypes.roomUpdated, EventTypes.gameFinished]),
    );
    expect(publishedOrder(last)).toEqual([EventTypes.gameFinished, EventTypes.roomUpdated]);
    const finished = last.find((e) => e.type === EventTypes.gameFinished)?.data;
    expect(finished).toMatchObject({
      gameId: `${room._id}:1`,
      // 22 nines: the 22nd move, player 2's, reaches 198.
      winner: { ...bob, seat: 'player2' },
      loser: { ...alice, seat: 'player1' },
      endReason: 'reached198',
      duration: 32,
      playedSeconds: 22,
      specialRandom: room.whosTurn.specialRandom,
      moves: 22,
      aborted: false,
    });
  });

  it('on leaving mid-game: the result, the final snapshot, then the deletion with a later version', () => {
    const room = started();
    const change = changed(planLeave(room, alice.id, T0 + 1000));
    const events = eventsOf(room, change, T0 + 1000);
    expect(publishedOrder(events)).toEqual([
      EventTypes.gameFinished,
      EventTypes.roomUpdated,
      EventTypes.roomDeleted,
    ]);
    expect(events[0]?.data).toMatchObject({
      endReason: 'left',
      loser: { id: alice.id },
      winner: { id: bob.id },
      // Nobody had moved: the game is aborted (DECISIONS.md "Aborted games").
      aborted: true,
      moves: 0,
    });
    expect(events[2]?.data).toEqual({
      roomId: room._id,
      version: room.version + 2,
      reason: 'left',
      playerIds: [alice.id, bob.id],
    });
  });

  it("names an arena room's arena in its game.finished, and no arena for any other room", () => {
    const arenaId = 'event-9:1796196000000';
    const room: RoomRecord = { ...started(), gameType: 'tournament', arenaId };
    const finishedIn = (r: RoomRecord) =>
      eventsOf(r, changed(planLeave(r, alice.id, T0 + 1000)), T0 + 1000).find(
        (e) => e.type === EventTypes.gameFinished,
      )?.data;
    const arenaGame = finishedIn(room);
    expect(arenaGame).toMatchObject({ arenaId });
    expect(eventSchemas[EventTypes.gameFinished].parse(arenaGame)).toMatchObject({ arenaId });
    expect(finishedIn(started())).not.toHaveProperty('arenaId');
  });

  it('marks a game aborted until each player has moved: a leave after one move, not after two', () => {
    const room = started();
    const first = changed(planMove(room, alice.id, { number: 4, option: 'plain' }, T0 + 1000, fixedRandom()));
    const leftAfterOne = changed(planLeave(first.next, bob.id, T0 + 2000));
    expect(eventsOf(first.next, leftAfterOne, T0 + 2000)[0]?.data).toMatchObject({
      endReason: 'left',
      winner: { id: alice.id },
      moves: 1,
      aborted: true,
    });
    const second = changed(
      planMove(first.next, bob.id, { number: 4, option: 'plain' }, T0 + 2000, fixedRandom()),
    );
    const leftAfterTwo = changed(planLeave(second.next, bob.id, T0 + 3000));
    expect(eventsOf(second.next, leftAfterTwo, T0 + 3000)[0]?.data).toMatchObject({
      endReason: 'left',
      winner: { id: alice.id },
      moves: 2,
      aborted: false,
    });
  });

  it('never carries the passcode, nor specialRandom while the game runs', () => {
    const room = started();
    const change = changed(
      planMove(room, alice.id, { number: 4, option: 'plain' }, T0 + 1000, fixedRandom()),
    );
    const text = JSON.stringify(eventsOf(room, change, T0 + 1000));
    expect(text).not.toContain('4321');
    expect(text).not.toContain('passCode');
    expect(text).not.toContain(String(room.whosTurn.specialRandom));
    const view = toRoomView(change.next, T0);
    expect(view.hasPassCode).toBe(true);
    expect(view.whosTurn.specialRandom).toBeNull();
    expect(Object.keys(view)).not.toContain('passCode');
  });

  describe('fair play', () => {
    const COMMIT = referenceCommit(SEED);
    const seeded = () =>
      changed(planJoin(waitingRoom(), bob, undefined, T0, fixedRandom(), fixedSeeds(SEED))).next;
    const snapshotOf = (events: ReturnType<typeof eventsFor>) =>
      (events.find((e) => e.type === EventTypes.roomUpdated)?.data as RoomSnapshot).room;

    it('shows the commitment from the start and never the seed while the game runs', () => {
      const waiting = waitingRoom();
      expect(toRoomView(waiting, T0)).toMatchObject({ aiCommit: null, aiSeed: null });
      const start = changed(planJoin(waiting, bob, undefined, T0, fixedRandom(), fixedSeeds(SEED)));
      const seen = [...eventsOf(waiting, start, T0)];
      let room = start.next;
      for (let i = 1; i <= 30 && !room.whosTurn.gameOver; i++) {
        const mover = room.whosTurn.player1.turn ? alice : bob;
        const change = changed(
          planMove(room, mover.id, { number: 3, option: 'plain' }, T0 + i * 1000, fixedRandom()),
        );
        const events = eventsOf(room, change, T0 + i * 1000);
        expect(snapshotOf(events)).toMatchObject({
          aiCommit: COMMIT,
          aiSeed: null,
          whosTurn: { aiCommit: COMMIT, aiSeed: null },
        });
        seen.push(...events);
        room = change.next;
      }
      expect(room.whosTurn.gameOver).toBe(false);
      expect(new Set(seen.map((e) => e.type))).toEqual(new Set([EventTypes.roomUpdated]));
      // Every room.updated (the RoomView a rooms replica of the earlier release pushes).
      expect(JSON.stringify(seen)).not.toContain(SEED);
      expect(JSON.stringify(toRoomView(room, T0))).not.toContain(SEED);
    });

    it('reveals the seed with the result: in the final snapshot and in game.finished', () => {
      let room = seeded();
      let last: ReturnType<typeof eventsFor> = [];
      for (let now = T0 + 1000; !room.whosTurn.gameOver; now += 1000) {
        const mover = room.whosTurn.player1.turn ? alice : bob;
        const change = changed(planMove(room, mover.id, { number: 9, option: 'plain' }, now, fixedRandom()));
        last = eventsOf(room, change, now);
        room = change.next;
      }
      expect(snapshotOf(last)).toMatchObject({
        aiCommit: COMMIT,
        aiSeed: SEED,
        whosTurn: { aiCommit: COMMIT, aiSeed: SEED, specialRandom: room.whosTurn.specialRandom },
      });
      const finished = last.find((e) => e.type === EventTypes.gameFinished)?.data as GameFinished;
      expect(finished).toMatchObject({
        draw: false,
        player1: alice,
        player2: bob,
        aiSeed: SEED,
        aiCommit: COMMIT,
        moves: 22,
      });
    });

    it('publishes a draw after the 250th move: no winner or loser, both players, the seed', () => {
      const before = playBelow198(seeded(), MOVE_LIMIT - 1);
      const change = changed(
        planMove(before, bob.id, { number: 1, option: 'plain' }, T0 + 30_000, fixedRandom()),
      );
      const events = eventsOf(before, change, T0 + 30_000);
      expect(publishedOrder(events)).toEqual([EventTypes.gameFinished, EventTypes.roomUpdated]);
      const finished = events.find((e) => e.type === EventTypes.gameFinished)?.data as GameFinished;
      expect(finished).toEqual({
        gameId: `${before._id}:1`,
        roomId: before._id,
        gameNumber: 1,
        draw: true,
        winner: null,
        loser: null,
        endReason: 'moveLimit',
        player1: alice,
        player2: bob,
        duration: 32,
        playedSeconds: 30,
        aiSeed: SEED,
        aiCommit: COMMIT,
        specialRandom: before.whosTurn.specialRandom,
        moves: 250,
        // Every move, so the game can be replayed and checked from this event alone (My games).
        moveList: change.next.whosTurn.moves,
        finishedAt: new Date(T0 + 30_000).toISOString(),
        aborted: false,
      });
      expect(snapshotOf(events)).toMatchObject({
        gameOver: true,
        aiSeed: SEED,
        whosTurn: {
          winner: null,
          endReason: 'moveLimit',
          player1: { turn: false },
          player2: { turn: false },
        },
      });
    });
  });
});
