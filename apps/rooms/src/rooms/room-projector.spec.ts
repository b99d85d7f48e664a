import { EventIds, EventTypes } from '@oasis198/contracts';
import { makeEvent, scheduleOf } from '@oasis198/service-kit';
import { roomView, startedGame } from '@oasis198/testing';
import { scheduleOfChange } from './room-projector';

const snapshot = (version: number) => {
  const room = roomView(startedGame(), { version });
  return makeEvent(EventTypes.roomUpdated, EventIds.roomUpdated(room._id, version), { room });
};
const deleted = (version: number) =>
  makeEvent(EventTypes.roomDeleted, EventIds.roomDeleted('room-1'), {
    roomId: 'room-1',
    version,
    reason: 'left',
    playerIds: ['a', 'b'],
  });

describe('scheduleOfChange: the schedule a room change leaves', () => {
  it("is the deadlines of the change's last snapshot", () => {
    const schedule = scheduleOfChange([snapshot(3)]);
    expect(schedule).toEqual(scheduleOf(roomView(startedGame(), { version: 3 })));
    expect(schedule?.deadlines.map((deadline) => deadline.kind)).toEqual(['turn', 'abandoned']);
  });

  it("is a cancellation at the deletion's version once the room is gone", () => {
    expect(scheduleOfChange([snapshot(3), deleted(4)])).toEqual({
      roomId: 'room-1',
      version: 4,
      deadlines: [],
    });
  });

  it('is nothing for a change without a snapshot or a deletion', () => {
    expect(scheduleOfChange([])).toBeNull();
  });
});
