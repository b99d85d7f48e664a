import type { TokenClaims } from '@oasis198/contracts';
import { initialGameState, TIME_BASE_MS } from '@oasis198/game-rules';
import { createHash, createHmac } from 'node:crypto';
import type { RoomRecord } from './room.schema';
import { isUnchanged, planMove } from './room-transitions';

/** Fixtures for the unit tests of the room rules (not used by the service itself). */
export const T0 = TIME_BASE_MS + 100_000_000;

export const alice = { id: 'alice-id', name: 'alice' };
export const bob = { id: 'bob-id', name: 'bob' };
export const carol = { id: 'carol-id', name: 'carol' };

export const claims = (person: { id: string; name: string }): TokenClaims => ({
  userId: person.id,
  name: person.name,
  jti: `jti-${person.id}`,
  exp: Math.floor(T0 / 1000) + 3600,
});

/** A fixed "random" source: the same draws every time. */
export const fixedRandom =
  (value = 0.5) =>
  () =>
    value;

/** Fixed 32-byte AI seeds (hex), in the order a test's games draw them. */
export const SEED = '5eed'.repeat(16);
export const NEXT_SEED = 'a1'.repeat(32);
export const fixedSeeds =
  (...seeds: string[]) =>
  (): string =>
    seeds.shift() ?? SEED;

export function waitingRoom(overrides: Partial<RoomRecord> = {}): RoomRecord {
  return {
    _id: '0123456789abcdef01234567',
    name: 'Room 7',
    roomNumber: 7,
    gameType: 'quick-battle',
    createdBy: alice,
    duration: 32,
    passCode: '',
    players: [alice],
    playerCount: 1,
    gameStarted: false,
    gameOver: false,
    whosTurn: initialGameState(),
    version: 1,
    waitingSince: new Date(T0),
    gameStartedAt: null,
    createdAt: new Date(T0),
    ...overrides,
  };
}

/** The commitment to an AI seed (DECISIONS.md "Fair play"), computed with node:crypto alone. */
export const referenceCommit = (seed: string): string =>
  createHash('sha256').update(Buffer.from(seed, 'hex')).digest('hex');

/** The AI number of move i (DECISIONS.md "Fair play"), computed with node:crypto alone. */
export const referenceAi = (seed: string, moveIndex: number): number =>
  1 + (createHmac('sha256', Buffer.from(seed, 'hex')).update(String(moveIndex)).digest().readUInt32BE(0) % 9);

/**
 * Plays `count` legal moves of alice (player 1) and bob (player 2) that keep the total below 198,
 * 100 ms apart: plain 1s under 161, then a minus with the AI's own number (the room's seed is
 * known here), which matches and so costs nothing.
 */
export function playBelow198(start: RoomRecord, count: number): RoomRecord {
  let room = start;
  for (let i = 0; i < count; i++) {
    const w = room.whosTurn;
    const mover = w.player1.turn ? alice : bob;
    const intent =
      w.currentNumber >= 161
        ? { number: referenceAi(w.aiSeed as string, w.moves.length), option: 'minus' as const }
        : { number: 1, option: 'plain' as const };
    const plan = planMove(room, mover.id, intent, T0 + (w.moves.length + 1) * 100, fixedRandom());
    if (isUnchanged(plan)) throw new Error('expected a move');
    room = plan.next;
  }
  return room;
}
