import type { TokenClaims } from '@oasis198/contracts';
import { initialGameState, TIME_BASE_MS } from '@oasis198/game-rules';
import type { RoomRecord } from './room.schema';

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
