import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { AI_SEED_BYTES, PICK_MAX, PICK_MIN, SPECIAL_RANDOM_MAX, SPECIAL_RANDOM_MIN } from './constants';

/** A source of uniform numbers in [0, 1), such as Math.random or a crypto-backed equivalent. */
export type RandomSource = () => number;

const SEED_HEX = new RegExp(`^[0-9a-f]{${AI_SEED_BYTES * 2}}$`);

/** A game's AI seed as it is kept and revealed: its 32 bytes as 64 lowercase hex characters. */
export function isAiSeed(value: unknown): value is string {
  return typeof value === 'string' && SEED_HEX.test(value);
}

function seedBytes(aiSeed: string): Uint8Array {
  if (!isAiSeed(aiSeed)) {
    throw new RangeError('the AI seed must be 32 bytes as 64 lowercase hex characters');
  }
  return hexToBytes(aiSeed);
}

/**
 * The commitment to a game's AI seed (DECISIONS.md "Fair play"): the SHA-256 of its 32 bytes, as
 * 64 lowercase hex characters. It is public from the game's start, so the seed revealed at the
 * end can be checked against it.
 */
export function aiCommitOf(aiSeed: string): string {
  return bytesToHex(sha256(seedBytes(aiSeed)));
}

/**
 * The AI's number for move i (0-based) of a game (DECISIONS.md "Fair play"):
 *   1 + (first 4 bytes of HMAC-SHA-256(key = the 32 seed bytes, message = ASCII decimal i),
 *        read as a big-endian unsigned integer) mod 9.
 * The seed is a fresh 32-byte secret of the game, so its numbers cannot be predicted while it
 * runs; once the seed is revealed, anyone can recompute every one of them.
 */
export function aiNumber(aiSeed: string, moveIndex: number): number {
  if (!Number.isSafeInteger(moveIndex) || moveIndex < 0) {
    throw new RangeError(`the move index must be a whole number >= 0, got ${moveIndex}`);
  }
  const mac = hmac(sha256, seedBytes(aiSeed), utf8ToBytes(String(moveIndex)));
  const word = new DataView(mac.buffer, mac.byteOffset, 4).getUint32(0); // big-endian
  return PICK_MIN + (word % (PICK_MAX - PICK_MIN + 1));
}

/** Draws a pick 1..9 from a random source. */
export function drawPick(random: RandomSource): number {
  return clampInt(PICK_MIN + Math.floor(random() * (PICK_MAX - PICK_MIN + 1)), PICK_MIN, PICK_MAX);
}

/**
 * Draws a fresh 6-digit specialRandom (100000..999999): SPEC's field, hidden while the game runs
 * and shown when it is over. It keys nothing; the AI numbers come from the game's seed.
 */
export function drawSpecialRandom(random: RandomSource): number {
  const span = SPECIAL_RANDOM_MAX - SPECIAL_RANDOM_MIN + 1;
  return clampInt(SPECIAL_RANDOM_MIN + Math.floor(random() * span), SPECIAL_RANDOM_MIN, SPECIAL_RANDOM_MAX);
}

export function isSpecialRandom(value: unknown): value is number {
  return (
    Number.isInteger(value) &&
    (value as number) >= SPECIAL_RANDOM_MIN &&
    (value as number) <= SPECIAL_RANDOM_MAX
  );
}

function clampInt(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, value));
}
