import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { aiNumber, drawPick, drawSpecialRandom, isSpecialRandom } from './ai';

/** DECISIONS.md's rule, computed independently with node:crypto. */
const referenceAi = (specialRandom: number, moveIndex: number): number =>
  1 + (createHmac('sha256', String(specialRandom)).update(String(moveIndex)).digest().readUInt32BE(0) % 9);

const specialRandoms = fc.integer({ min: 100_000, max: 999_999 });
const moveIndexes = fc.integer({ min: 0, max: 500 });

describe('aiNumber', () => {
  it('is always a whole number from 1 to 9', () => {
    fc.assert(
      fc.property(specialRandoms, moveIndexes, (specialRandom, moveIndex) => {
        const n = aiNumber(specialRandom, moveIndex);
        expect(Number.isInteger(n)).toBe(true);
        expect(n).toBeGreaterThanOrEqual(1);
        expect(n).toBeLessThanOrEqual(9);
      }),
      { numRuns: 1000 },
    );
  });

  it('is 1 + (first 4 bytes of HMAC-SHA-256(key = specialRandom, message = move index)) mod 9', () => {
    fc.assert(
      fc.property(specialRandoms, moveIndexes, (specialRandom, moveIndex) => {
        expect(aiNumber(specialRandom, moveIndex)).toBe(referenceAi(specialRandom, moveIndex));
      }),
      { numRuns: 1000 },
    );
    expect(aiNumber(100_000, 0)).toBe(referenceAi(100_000, 0));
    expect(aiNumber(999_999, 0)).toBe(referenceAi(999_999, 0));
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(specialRandoms, moveIndexes, (specialRandom, moveIndex) => {
        expect(aiNumber(specialRandom, moveIndex)).toBe(aiNumber(specialRandom, moveIndex));
      }),
    );
  });

  it('takes every value 1..9 over a game and depends on both the secret and the move index', () => {
    const picks = Array.from({ length: 200 }, (_, k) => aiNumber(123_456, k));
    expect(new Set(picks)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    const other = Array.from({ length: 200 }, (_, k) => aiNumber(654_321, k));
    expect(other).not.toEqual(picks);
  });

  it('is close to uniform', () => {
    const counts = new Array<number>(10).fill(0);
    for (let k = 0; k < 4_500; k++) {
      const n = aiNumber(314_159, k);
      counts[n] = (counts[n] ?? 0) + 1;
    }
    for (let n = 1; n <= 9; n++) {
      expect(counts[n]).toBeGreaterThan(420);
      expect(counts[n]).toBeLessThan(580);
    }
  });
});

describe('drawPick', () => {
  it('maps [0, 1) onto 1..9 evenly', () => {
    expect(drawPick(() => 0)).toBe(1);
    expect(drawPick(() => 0.1111)).toBe(1);
    expect(drawPick(() => 0.1112)).toBe(2);
    expect(drawPick(() => 0.5)).toBe(5);
    expect(drawPick(() => 0.8889)).toBe(9);
    expect(drawPick(() => 0.9999999)).toBe(9);
  });

  it('stays in 1..9 even for a misbehaving source', () => {
    expect(drawPick(() => 1)).toBe(9);
    expect(drawPick(() => 7)).toBe(9);
    expect(drawPick(() => -3)).toBe(1);
    expect(drawPick(() => Number.NaN)).toBe(1);
    expect(drawPick(() => Number.POSITIVE_INFINITY)).toBe(1);
  });

  it('always gives a whole number 1..9', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (r) => {
        const pick = drawPick(() => r);
        expect(Number.isInteger(pick) && pick >= 1 && pick <= 9).toBe(true);
      }),
    );
  });
});

describe('drawSpecialRandom and isSpecialRandom', () => {
  it('draws a 6-digit number 100000..999999', () => {
    expect(drawSpecialRandom(() => 0)).toBe(100_000);
    expect(drawSpecialRandom(() => 0.9999999999)).toBe(999_999);
    expect(drawSpecialRandom(() => 1)).toBe(999_999);
    expect(drawSpecialRandom(() => Number.NaN)).toBe(100_000);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (r) => {
        expect(isSpecialRandom(drawSpecialRandom(() => r))).toBe(true);
      }),
    );
  });

  it('accepts exactly the integers 100000..999999', () => {
    for (const ok of [100_000, 123_456, 999_999]) expect(isSpecialRandom(ok)).toBe(true);
    for (const bad of [99_999, 1_000_000, 0, -123_456, 123_456.5, Number.NaN, '123456', null, undefined]) {
      expect(isSpecialRandom(bad)).toBe(false);
    }
  });
});
