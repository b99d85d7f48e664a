import { PICK_MAX, PICK_MIN, SPECIAL_RANDOM_MAX, SPECIAL_RANDOM_MIN } from './constants';
import { hmacSha256, utf8 } from './sha256';

/** A source of uniform numbers in [0, 1), such as Math.random or a crypto-backed equivalent. */
export type RandomSource = () => number;

/**
 * The AI's number for move k (0-based) of a game:
 *   1 + (first 4 bytes of HMAC-SHA-256(key = decimal specialRandom, message = decimal k), big-endian) mod 9.
 * specialRandom stays secret while the game runs, so nobody can predict it; once it is revealed,
 * anyone can recompute every pick with this rule.
 */
export function aiNumber(specialRandom: number, moveIndex: number): number {
  const mac = hmacSha256(utf8(String(specialRandom)), utf8(String(moveIndex)));
  const word = new DataView(mac.buffer, mac.byteOffset, 4).getUint32(0);
  return PICK_MIN + (word % (PICK_MAX - PICK_MIN + 1));
}

/** Draws a pick 1..9 from a random source. */
export function drawPick(random: RandomSource): number {
  return clampInt(PICK_MIN + Math.floor(random() * (PICK_MAX - PICK_MIN + 1)), PICK_MIN, PICK_MAX);
}

/** Draws a fresh 6-digit specialRandom (100000..999999). */
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
