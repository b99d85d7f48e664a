import {
  type GameFinished,
  gameFinishedSchema,
  parseEvent,
  type UserDeleted,
  userDeletedSchema,
  type UserRegistered,
  userNamedSchema,
} from '@oasis198/contracts';

// A payload that can never be applied answers malformedEvent, which the consumer terminates.

/** user.registered and user.renamed carry the same fields. */
export const parseUserNamed = (data: unknown): UserRegistered => parseEvent(userNamedSchema, data, 'user');

export const parseUserDeleted = (data: unknown): UserDeleted =>
  parseEvent(userDeletedSchema, data, 'user.deleted');

/**
 * game.finished as contracts defines it: a draw names both players and nobody else; any other
 * result names a winner and a loser, its two different players.
 */
export const parseGameFinished = (data: unknown): GameFinished =>
  parseEvent(gameFinishedSchema, data, 'game.finished');

/** When the event happened, in ms; events without a usable time count as the epoch. */
export function occurredAtMs(occurredAt: unknown): number {
  const ms = typeof occurredAt === 'string' ? Date.parse(occurredAt) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}
