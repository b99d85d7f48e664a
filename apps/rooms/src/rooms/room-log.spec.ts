import { EventTypes } from '@oasis198/contracts';
import { bob, fixedRandom, playBelow198, T0, waitingRoom } from './room.fixtures';
import type { RoomRecord } from './room.schema';
import { eventsFor, hasLastState } from './room-events';
import { decodeEntry, encodeEntry, isLostRace, type RoomLogEntry } from './room-log';
import { isUnchanged, planJoin, planLeave, type Transition } from './room-transitions';
import { toRoomView } from './room-view';

const JSON_OF = (entry: RoomLogEntry) => JSON.parse(JSON.stringify(entry)) as unknown;

function change(plan: ReturnType<typeof planJoin>): Transition {
  if (isUnchanged(plan)) throw new Error('expected a change');
  return plan;
}

function entryOf(prev: RoomRecord | null, transition: Transition, nowMs: number): RoomLogEntry {
  const { next, deleted } = transition;
  return {
    room: deleted ? { ...next, version: deleted.version } : next,
    events: eventsFor(prev, transition, nowMs, hasLastState(transition) ? toRoomView(next, nowMs) : null),
    deleted: !!deleted,
    listed: true,
  };
}

describe('the room log encoding', () => {
  const room = waitingRoom();
  const joined = change(planJoin(room, bob, undefined, T0, fixedRandom()));
  const midGame = playBelow198(joined.next, 30);

  it.each([
    ['a new room', () => entryOf(null, { next: room }, T0)],
    ['a join that starts the game', () => entryOf(room, joined, T0 + 1_234)],
    ['a room 30 moves into a game', () => entryOf(joined.next, { next: midGame }, T0 + 40_000)],
    [
      'a leave that ends the game and deletes the room',
      () => entryOf(midGame, change(planLeave(midGame, bob.id, T0 + 50_000)), T0 + 50_000),
    ],
  ])('decodes %s to what was appended, but for its snapshots, which are its room', (_name, make) => {
    const entry = make();
    const withoutSnapshots = {
      ...entry,
      events: entry.events.filter(
        (e) => e.type !== EventTypes.roomUpdated && e.type !== EventTypes.roomCreated,
      ),
    };
    expect(JSON_OF(decodeEntry(encodeEntry(entry)))).toEqual(JSON_OF(withoutSnapshots));
  });

  it('carries the room once: a snapshot is logged as a reference to the room', () => {
    const entry = entryOf(joined.next, { next: midGame }, T0 + 40_000);
    const snapshot = entry.events.find((e) => e.type === EventTypes.roomUpdated);
    expect(snapshot).toBeDefined();
    const full = JSON.stringify(entry).length;
    const encoded = encodeEntry(entry).length;
    expect(encoded).toBeLessThan(full - JSON.stringify(snapshot?.data).length + 100);
  });

  it('keeps the snapshot reference that a rooms replica of the earlier release rebuilds and schedules from', () => {
    const entry = entryOf(joined.next, { next: midGame }, T0 + 40_000);
    const stored = JSON.parse(new TextDecoder().decode(encodeEntry(entry))) as { logged: unknown[] };
    expect(stored.logged).toContainEqual({
      id: `room.updated:${midGame._id}:${midGame.version}`,
      type: EventTypes.roomUpdated,
      occurredAt: expect.any(String),
      serverNow: toRoomView(midGame, T0 + 40_000).serverNow,
    });
  });
});

describe('entries appended before the compact encoding', () => {
  it('read as they were written, but for their snapshots', () => {
    const room = waitingRoom();
    const joined = change(planJoin(room, bob, undefined, T0, fixedRandom()));
    const midGame = playBelow198(joined.next, 30);
    const entry = entryOf(midGame, change(planLeave(midGame, bob.id, T0 + 50_000)), T0 + 50_000);
    const earlier = new TextEncoder().encode(JSON.stringify(entry));
    expect(decodeEntry(earlier).events.map((e) => e.type)).toEqual([
      EventTypes.gameFinished,
      EventTypes.roomDeleted,
    ]);
    expect(JSON.stringify(decodeEntry(earlier).room)).toBe(JSON.stringify(entry.room));
  });
});

describe('a lost append race', () => {
  // As nats.js 2.29 throws them: from a single server, and from an R3 stream on a three-node cluster.
  const refusal = (errCode: number, description: string) =>
    Object.assign(new Error(description), {
      code: '400',
      api_error: { code: 400, err_code: errCode, description },
    });

  it('is told apart from other refusals, on one server and on a cluster', () => {
    expect(isLostRace(refusal(10071, 'wrong last sequence: 41'))).toBe(true);
    expect(isLostRace(refusal(10164, 'wrong last sequence'))).toBe(true);
    expect(isLostRace(refusal(10077, 'maximum messages exceeded'))).toBe(false);
    expect(isLostRace(new Error('TIMEOUT'))).toBe(false);
  });
});
