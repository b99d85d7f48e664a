import { AI_SEED_BYTES, type RandomSource } from '@oasis198/game-rules';
import { randomBytes, randomInt } from 'node:crypto';

const SPAN = 2 ** 47;

/** A uniform number in [0, 1) from the operating system's CSPRNG: picks and specialRandom must be unguessable. */
export const cryptoRandom: RandomSource = () => randomInt(0, SPAN) / SPAN;

/** Draws a game's secret AI seed. */
export type AiSeedSource = () => string;

/** A fresh 32-byte AI seed from the operating system's CSPRNG, as 64 lowercase hex characters. */
export const cryptoAiSeed: AiSeedSource = () => randomBytes(AI_SEED_BYTES).toString('hex');
