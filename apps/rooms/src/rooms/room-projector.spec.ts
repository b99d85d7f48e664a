import { EventTypes } from '@oasis198/contracts';
import { makeEvent, scheduleOf } from '@oasis198/service-kit';
import { bob, fixedRandom, T0, waitingRoom } from './room.fixtures';
import { isPublished, scheduleOfEntry } from './room-projector';
import { isUnchanged, planJoin } from './room-transitions';
import { toRoomView } from './room-view';

function started() {
  const plan = planJoin(waitingRoom(), bob, undefined, T0, fixedRandom());
  if (isUnchanged(plan)) throw new Error('expected a change');
  return plan.next;
}

describe('scheduleOfEntry: the schedule a room change leaves', () => {
  it("is the deadlines of the entry's room", () => {
    const room = started();
    const schedule = scheduleOfEntry({ room, deleted: false });
    expect(schedule).toEqual(scheduleOf(toRoomView(room, 0)));
    expect(schedule.version).toBe(room.version);
    expect(schedule.deadlines.map((deadline) => deadline.kind)).toEqual(['turn', 'abandoned']);
  });

  it("is a cancellation at the deletion's version once the room is gone", () => {
    const room = { ...started(), version: 4 };
    expect(scheduleOfEntry({ room, deleted: true })).toEqual({ roomId: room._id, version: 4, deadlines: [] });
  });
});

describe('isPublished: what of an entry goes to GAMES', () => {
  it('is game.finished, the one event a consumer reads; never a snapshot or a deletion', () => {
    const event = (type: (typeof EventTypes)[keyof typeof EventTypes]) =>
      makeEvent(type, `${type}:room-1`, {} as never);
    expect(isPublished(event(EventTypes.gameFinished))).toBe(true);
    for (const type of [
      EventTypes.roomCreated,
      EventTypes.roomUpdated,
      EventTypes.roomDeleted,
      EventTypes.gameStarted,
      EventTypes.moveMade,
    ]) {
      expect(isPublished(event(type))).toBe(false);
    }
  });
});
