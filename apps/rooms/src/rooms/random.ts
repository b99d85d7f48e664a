import type { RandomSource } from '@oasis198/game-rules';
import { randomInt } from 'node:crypto';

const SPAN = 2 ** 47;

/** A uniform number in [0, 1) from the operating system's CSPRNG: picks and specialRandom must be unguessable. */
export const cryptoRandom: RandomSource = () => randomInt(0, SPAN) / SPAN;
