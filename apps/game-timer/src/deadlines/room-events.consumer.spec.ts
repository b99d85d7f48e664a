import { AppError, type EventEnvelope, EventTypes } from '@oasis198/contracts';
import { createLogger, type JetStreamService, makeEvent, Metrics } from '@oasis198/service-kit';
import { roomView, startedGame } from '../testing/room-views';
import { RoomEventsConsumer } from './room-events.consumer';
import type { RoomSchedule } from './schedule';
import type { ScheduleStore } from './schedule-store';

/** The consumer with a store that records what it is asked to write (no server needed here). */
function setup() {
  const written: RoomSchedule[] = [];
  const store = { write: async (schedule: RoomSchedule) => (written.push(schedule), 'scheduled') };
  const consumer = new RoomEventsConsumer(
    {} as JetStreamService,
    store as unknown as ScheduleStore,
    createLogger('timer-spec', 'silent'),
    new Metrics('game-timer'),
    { TIMER_ROOM_EVENTS_CONCURRENCY: 1 },
  );
  return { consumer, written };
}

const event = (type: string, data: unknown): EventEnvelope =>
  makeEvent(type as typeof EventTypes.roomUpdated, `${type}:test`, data as never);

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof AppError ? `${error.code}: ${error.message}` : String(error)),
  );

describe('RoomEventsConsumer', () => {
  it('schedules a room snapshot, and cancels a deleted room', async () => {
    const { consumer, written } = setup();
    await consumer.handle(event(EventTypes.roomUpdated, { room: roomView(startedGame(), { version: 3 }) }));
    expect(written[0]).toMatchObject({ roomId: 'room-1', version: 3 });
    expect(written[0]?.deadlines.map((d) => d.kind)).toEqual(['turn', 'abandoned']);
    await consumer.handle(
      event(EventTypes.roomDeleted, { roomId: 'room-1', version: 4, reason: 'left', playerIds: ['a'] }),
    );
    expect(written[1]).toEqual({ roomId: 'room-1', version: 4, deadlines: [] });
  });

  it('terminates a snapshot or a deletion it cannot read (VALIDATION), writing nothing', async () => {
    const { consumer, written } = setup();
    const room = roomView(startedGame());
    const { deadline: _gone, ...noDeadline } = room.whosTurn;
    for (const data of [
      {},
      { room: null },
      { room: { ...room, version: 'x' } },
      { room: { ...room, whosTurn: noDeadline } },
      { room: { ...room, whosTurn: { ...room.whosTurn, player1: null } } },
    ]) {
      expect(await refusal(consumer.handle(event(EventTypes.roomUpdated, data)))).toBe(
        'VALIDATION: malformed room.updated event',
      );
    }
    for (const data of [
      { roomId: 'room-1', version: 4, reason: 'bored', playerIds: [] },
      { roomId: 'room-1', reason: 'left', playerIds: [] },
    ]) {
      expect(await refusal(consumer.handle(event(EventTypes.roomDeleted, data)))).toBe(
        'VALIDATION: malformed room.deleted event',
      );
    }
    expect(written).toEqual([]);
  });
});
