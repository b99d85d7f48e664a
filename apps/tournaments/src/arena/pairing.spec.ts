import fc from 'fast-check';
import { type FreePlayer, notInHand, pairFree, pairingWait } from './pairing';

const player = (playerId: string, lastOpponent: string | null = null, freeSince = 0): FreePlayer => ({
  playerId,
  lastOpponent,
  freeSince,
});

describe('pairFree', () => {
  it('pairs the longest waiting first', () => {
    expect(
      pairFree([player('c', null, 3), player('a', null, 1), player('b', null, 2), player('d', null, 4)]),
    ).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('never pairs last opponents again while someone else is free', () => {
    expect(pairFree([player('a', 'b', 1), player('b', 'a', 2), player('c', null, 3)])).toEqual([['a', 'c']]);
    expect(pairFree([player('a', 'b'), player('b', 'a'), player('c', 'd'), player('d', 'c')])).toEqual([
      ['a', 'c'],
      ['b', 'd'],
    ]);
  });

  it('lets last opponents meet again when nobody else is free', () => {
    expect(pairFree([player('a', 'b'), player('b', 'a')])).toEqual([['a', 'b']]);
  });

  it('leaves one player alone', () => {
    expect(pairFree([player('a')])).toEqual([]);
    expect(pairFree([])).toEqual([]);
  });

  it('pairs nobody twice, nobody with themselves, and no rematch unless only two are free', () => {
    const ids = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
    const free = fc.uniqueArray(fc.constantFrom(...ids), { maxLength: ids.length }).chain((chosen) =>
      fc.tuple(
        ...chosen.map((id) =>
          fc.record({
            playerId: fc.constant(id),
            lastOpponent: fc.option(fc.constantFrom(...ids.filter((other) => other !== id))),
            freeSince: fc.nat(1000),
          }),
        ),
      ),
    );
    fc.assert(
      fc.property(free, (players) => {
        const pairs = pairFree(players);
        const seen = pairs.flat();
        expect(new Set(seen).size).toBe(seen.length);
        const byId = new Map(players.map((p) => [p.playerId, p]));
        for (const [a, b] of pairs) {
          expect(a).not.toBe(b);
          const isRematch = byId.get(a)?.lastOpponent === b || byId.get(b)?.lastOpponent === a;
          if (isRematch) expect(players).toHaveLength(2);
        }
        // Every two players left waiting would be a rematch: nobody waits who could play.
        const left = players.filter((p) => !seen.includes(p.playerId));
        for (const a of left)
          for (const b of left)
            if (a !== b) expect(a.lastOpponent === b.playerId || b.lastOpponent === a.playerId).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('pairingWait', () => {
  it('counts from the arena start for a player who joined before it', () => {
    expect(pairingWait(1_000, 60_000, 60_250)).toBe(0.25);
  });

  it('counts from the game over for a player freed during the arena', () => {
    expect(pairingWait(90_000, 60_000, 90_400)).toBe(0.4);
  });

  it('counts nothing for a player told to wait until later (busy elsewhere)', () => {
    expect(pairingWait(95_000, 60_000, 90_400)).toBeNull();
  });
});

describe('notInHand', () => {
  it('leaves out the players whose opening is in hand, keeping the others in order', () => {
    const free = [{ _id: 'a|1' }, { _id: 'a|2' }, { _id: 'a|3' }, { _id: 'a|4' }];
    expect(notInHand(free, new Set(['a|2', 'a|4', 'a|9']))).toEqual([{ _id: 'a|1' }, { _id: 'a|3' }]);
  });

  it('keeps everyone when nothing is in hand', () => {
    const free = [{ _id: 'a|1' }, { _id: 'a|2' }];
    expect(notInHand(free, new Set())).toEqual(free);
  });
});
