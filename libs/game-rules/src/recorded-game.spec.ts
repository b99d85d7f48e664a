/**
 * A recorded real game (testing/recorded-game.json) checked as a player would check it by hand
 * (docs/fair-play.md): with node:crypto alone, independent of this library's code.
 */
import { createHash, createHmac } from 'node:crypto';
import recorded from './testing/recorded-game.json';

const seed = Buffer.from(recorded.aiSeed, 'hex');
const aiNumberOf = (key: Buffer, moveIndex: number): number =>
  1 + (createHmac('sha256', key).update(String(moveIndex), 'ascii').digest().readUInt32BE(0) % 9);

describe('a recorded game, checked with node:crypto only', () => {
  it('reveals a 32-byte seed whose SHA-256 is the commitment shown from the start', () => {
    expect(recorded.aiSeed).toMatch(/^[0-9a-f]{64}$/);
    expect(seed).toHaveLength(32);
    expect(createHash('sha256').update(seed).digest('hex')).toBe(recorded.aiCommit);
  });

  it('has every AI number = 1 + (first 4 bytes of HMAC-SHA-256(seed, move index), big-endian) mod 9', () => {
    expect(recorded.moves.length).toBeGreaterThan(40);
    recorded.moves.forEach((move, index) => {
      expect({ index, aiNumber: move.aiNumber }).toEqual({ index, aiNumber: aiNumberOf(seed, index) });
    });
    // It has matches, which the AI number decides.
    expect(recorded.moves.filter((m) => m.number === m.aiNumber).length).toBeGreaterThan(2);
  });

  it('would not check out under any other seed', () => {
    const other = Buffer.from(seed);
    other[31] = (other[31] as number) ^ 1;
    expect(createHash('sha256').update(other).digest('hex')).not.toBe(recorded.aiCommit);
    expect(recorded.moves.some((m, i) => m.aiNumber !== aiNumberOf(other, i))).toBe(true);
  });
});
