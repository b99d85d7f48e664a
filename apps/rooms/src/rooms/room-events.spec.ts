import { EventTypes } from '@oasis198/contracts';
import { pendingEvents } from '@oasis198/service-kit';
import { alice, bob, fixedRandom, T0, waitingRoom } from './room.fixtures';
import type { RoomRecord } from './room.schema';
import { eventsFor } from './room-events';
import { isUnchanged, type Plan, planJoin, planLeave, planMove, type Transition } from './room-transitions';
import { toRoomView } from './room-view';

const changed = (plan: Plan): Transition => {
  if (isUnchanged(plan)) throw new Error('expected a change');
  return plan;
};

function started(): RoomRecord {
  return changed(planJoin(waitingRoom({ passCode: '4321' }), bob, '4321', T0, fixedRandom())).next;
}

/** As the outbox relay would publish them: by occurredAt, then id. */
const publishedOrder = (events: ReturnType<typeof eventsFor>) =>
  pendingEvents({ outbox: Object.fromEntries(events.map((e, i) => [String(i), e])) }).map((e) => e.type);

describe('eventsFor', () => {
  it('announces a new room with its snapshot', () => {
    const room = waitingRoom();
    const events = eventsFor(null, { next: room }, T0);
    expect(events.map((e) => e.id)).toEqual([`room.created:${room._id}`]);
  });

  it('announces the game start when the second player joins', () => {
    const room = waitingRoom();
    const change = changed(planJoin(room, bob, undefined, T0, fixedRandom()));
    const events = eventsFor(room, change, T0);
    expect(events.map((e) => e.id)).toEqual([`game.started:${room._id}:1`, `room.updated:${room._id}:2`]);
    expect(events[0]?.data).toMatchObject({ gameNumber: 1, player1: alice, player2: bob, duration: 32 });
  });

  it('publishes the winning move, then the result, then the snapshot', () => {
    let room = started();
    let now = T0;
    let last: ReturnType<typeof eventsFor> = [];
    while (!room.whosTurn.gameOver) {
      now += 1000;
      const mover = room.whosTurn.player1.turn ? alice : bob;
      const change = changed(planMove(room, mover.id, { number: 9, option: 'plain' }, now, fixedRandom()));
      last = eventsFor(room, change, now);
      room = change.next;
    }
    expect(publishedOrder(last)).toEqual([
      EventTypes.moveMade,
      EventTypes.gameFinished,
      EventTypes.roomUpdated,
    ]);
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
    });
  });

  it('on leaving mid-game: the result, the final snapshot, then the deletion with a later version', () => {
    const room = started();
    const change = changed(planLeave(room, alice.id, T0 + 1000));
    const events = eventsFor(room, change, T0 + 1000);
    expect(publishedOrder(events)).toEqual([
      EventTypes.gameFinished,
      EventTypes.roomUpdated,
      EventTypes.roomDeleted,
    ]);
    expect(events[0]?.data).toMatchObject({
      endReason: 'left',
      loser: { id: alice.id },
      winner: { id: bob.id },
    });
    expect(events[2]?.data).toEqual({
      roomId: room._id,
      version: room.version + 2,
      reason: 'left',
      playerIds: [alice.id, bob.id],
    });
  });

  it('never carries the passcode, nor specialRandom while the game runs', () => {
    const room = started();
    const change = changed(
      planMove(room, alice.id, { number: 4, option: 'plain' }, T0 + 1000, fixedRandom()),
    );
    const text = JSON.stringify(eventsFor(room, change, T0 + 1000));
    expect(text).not.toContain('4321');
    expect(text).not.toContain('passCode');
    expect(text).not.toContain(String(room.whosTurn.specialRandom));
    const view = toRoomView(change.next, T0);
    expect(view.hasPassCode).toBe(true);
    expect(view.whosTurn.specialRandom).toBeNull();
    expect(Object.keys(view)).not.toContain('passCode');
  });
});
