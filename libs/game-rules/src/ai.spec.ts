import fc from 'fast-check';
import { createHash, createHmac } from 'node:crypto';
import { aiCommitOf, aiNumber, drawPick, drawSpecialRandom, isAiSeed, isSpecialRandom } from './ai';

/** DECISIONS.md "Fair play", computed independently with node:crypto. */
const referenceAi = (seedHex: string, moveIndex: number): number =>
  1 +
  (createHmac('sha256', Buffer.from(seedHex, 'hex')).update(String(moveIndex)).digest().readUInt32BE(0) % 9);
const referenceCommit = (seedHex: string): string =>
  createHash('sha256').update(Buffer.from(seedHex, 'hex')).digest('hex');

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const seeds = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex);
const moveIndexes = fc.integer({ min: 0, max: 500 });

const ZEROS = '00'.repeat(32);
const COUNTING = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

describe('aiNumber', () => {
  it('matches vectors computed with node:crypto', () => {
    // node -e: 1 + createHmac('sha256', Buffer.from(seed, 'hex')).update(String(i)).digest().readUInt32BE(0) % 9
    const vectors: [string, [number, number][]][] = [
      [
        ZEROS,
        [
          [0, 2],
          [1, 2],
          [2, 3],
          [3, 9],
          [4, 1],
          [5, 6],
          [9, 8],
          [10, 1],
          [99, 6],
          [249, 4],
          [250, 9],
        ],
      ],
      [
        COUNTING,
        [
          [0, 7],
          [1, 1],
          [2, 6],
          [3, 9],
          [4, 7],
          [5, 7],
          [9, 6],
          [10, 1],
          [99, 9],
          [249, 2],
          [250, 5],
        ],
      ],
    ];
    for (const [seed, pairs] of vectors) {
      for (const [moveIndex, expected] of pairs) expect(aiNumber(seed, moveIndex)).toBe(expected);
    }
  });

  it('is always a whole number from 1 to 9', () => {
    fc.assert(
      fc.property(seeds, moveIndexes, (seed, moveIndex) => {
        const n = aiNumber(seed, moveIndex);
        expect(Number.isInteger(n)).toBe(true);
        expect(n).toBeGreaterThanOrEqual(1);
        expect(n).toBeLessThanOrEqual(9);
      }),
      { numRuns: 1000 },
    );
  });

  it('is 1 + (first 4 bytes of HMAC-SHA-256(key = the 32 seed bytes, message = move index)) mod 9', () => {
    fc.assert(
      fc.property(seeds, moveIndexes, (seed, moveIndex) => {
        expect(aiNumber(seed, moveIndex)).toBe(referenceAi(seed, moveIndex));
      }),
      { numRuns: 1000 },
    );
  });

  it('takes every value 1..9 over a game and depends on both the seed and the move index', () => {
    const picks = Array.from({ length: 200 }, (_, k) => aiNumber(COUNTING, k));
    expect(new Set(picks)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    const other = Array.from({ length: 200 }, (_, k) => aiNumber(ZEROS, k));
    expect(other).not.toEqual(picks);
  });

  it('is close to uniform', () => {
    const counts = new Array<number>(10).fill(0);
    for (let k = 0; k < 4_500; k++) {
      const n = aiNumber(COUNTING, k);
      counts[n] = (counts[n] ?? 0) + 1;
    }
    for (let n = 1; n <= 9; n++) {
      expect(counts[n]).toBeGreaterThan(420);
      expect(counts[n]).toBeLessThan(580);
    }
  });

  it('refuses a seed that is not 64 lowercase hex characters, or a move index that is not whole', () => {
    for (const bad of ['', '00'.repeat(31), '00'.repeat(33), 'AA'.repeat(32), 'zz'.repeat(32), 123456]) {
      expect(() => aiNumber(bad as string, 0)).toThrow(RangeError);
    }
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => aiNumber(ZEROS, bad)).toThrow(RangeError);
  });
});

describe('aiCommitOf and isAiSeed', () => {
  it('commits to a seed with the SHA-256 of its 32 bytes, as 64 lowercase hex characters', () => {
    expect(aiCommitOf(ZEROS)).toBe('66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925');
    expect(aiCommitOf(COUNTING)).toBe('630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
    fc.assert(
      fc.property(seeds, (seed) => {
        expect(aiCommitOf(seed)).toBe(referenceCommit(seed));
      }),
    );
  });

  it('accepts exactly 64 lowercase hex characters as a seed', () => {
    expect(isAiSeed(ZEROS) && isAiSeed(COUNTING) && isAiSeed('f'.repeat(64))).toBe(true);
    for (const bad of ['', 'F'.repeat(64), 'f'.repeat(63), 'f'.repeat(65), 'g'.repeat(64), null, 7]) {
      expect(isAiSeed(bad)).toBe(false);
    }
    expect(() => aiCommitOf('abc')).toThrow(RangeError);
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
