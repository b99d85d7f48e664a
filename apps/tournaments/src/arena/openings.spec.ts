import { pairingDoc } from './arena.fixtures';
import { inBatches, planAnswers, planClaims } from './openings';

const pairing = (id: string, a: string, b: string) => pairingDoc('event-9:0', id, a, b);

describe('batches of openings', () => {
  it('cuts a round into batches of a size at most, in order', () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([1, 2], 50)).toEqual([[1, 2]]);
    expect(inBatches([], 50)).toEqual([]);
  });

  it('sends the pairings with both seats to rooms and gives back the seats of a taken one', () => {
    const pairings = [pairing('r1', 'a', 'b'), pairing('r2', 'c', 'd'), pairing('r3', 'e', 'f')];
    const seated = new Map([
      ['r1', 2],
      ['r2', 1],
      ['r3', 0],
    ]);
    const plan = planClaims(pairings, seated, (id) => (id === 'c' ? 10 : 20));
    expect(plan.claimed.map((p) => p._id)).toEqual(['r1']);
    expect(plan.taken.map((p) => p._id)).toEqual(['r2', 'r3']);
    // Guarded by the room: whichever of c and d sits in r2 is freed, from when they were free.
    expect(plan.release).toEqual([
      { arenaId: 'event-9:0', roomId: 'r2', playerId: 'c', notBefore: 10 },
      { arenaId: 'event-9:0', roomId: 'r2', playerId: 'd', notBefore: 20 },
    ]);
  });

  it('marks the rooms opened, frees a busy pair (the busy one later), and leaves an unanswered one', () => {
    const pairings = [pairing('r1', 'a', 'b'), pairing('r2', 'c', 'd'), pairing('r3', 'e', 'f')];
    const plan = planAnswers(
      pairings,
      [{ opened: true, roomId: 'r1' }, { opened: false, busy: ['d'] }, undefined],
      1000,
      5000,
    );
    expect(plan.opened.map((p) => p._id)).toEqual(['r1']);
    expect(plan.busy.map((p) => p._id)).toEqual(['r2']);
    expect(plan.release).toEqual([
      { arenaId: 'event-9:0', roomId: 'r2', playerId: 'c', notBefore: 1000 },
      { arenaId: 'event-9:0', roomId: 'r2', playerId: 'd', notBefore: 6000 },
    ]);
  });

  it('gives up a pairing whose arena ended first, apart from the busy ones', () => {
    const plan = planAnswers(
      [pairing('r1', 'a', 'b')],
      [{ opened: false, busy: [], ended: true }],
      1000,
      5000,
    );
    expect([plan.opened, plan.busy, plan.ended.map((p) => p._id)]).toEqual([[], [], ['r1']]);
    expect(plan.release.map((r) => r.notBefore)).toEqual([1000, 1000]);
  });
});
