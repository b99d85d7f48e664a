import {
  AppError,
  type GameDrawn,
  type GameFinished,
  type GameWon,
  isObject,
  type UserDeleted,
  type UserRegistered,
} from '@oasis198/contracts';
import { END_REASONS } from '@oasis198/game-rules';

/** A payload that can never be applied: the consumer terminates it (JetStreamService, VALIDATION). */
export const malformed = (what: string) => new AppError('VALIDATION', `malformed ${what} event`);

/** A user, room or game id as the events carry them. */
export const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 64;

/** user.registered and user.renamed carry the same fields. */
export function parseUserNamed(data: unknown): UserRegistered {
  if (!isObject(data) || !isId(data['userId']) || typeof data['name'] !== 'string' || !data['name']) {
    throw malformed('user');
  }
  return { userId: data['userId'], name: data['name'] };
}

export function parseUserDeleted(data: unknown): UserDeleted {
  if (!isObject(data) || !isId(data['userId'])) throw malformed('user.deleted');
  return { userId: data['userId'] };
}

const isPerson = (value: unknown): value is { id: string; name: string } =>
  isObject(value) && isId(value['id']) && typeof value['name'] === 'string';

const WON_REASONS: readonly unknown[] = END_REASONS.filter((reason) => reason !== 'moveLimit');

/**
 * The fields of game.finished that rewards use: a draw names both players and nobody else; any
 * other result names a winner and a loser, two different players.
 */
export function parseGameFinished(data: unknown): GameFinished {
  if (!isObject(data) || !isId(data['gameId']) || typeof data['duration'] !== 'number') {
    throw malformed('game.finished');
  }
  if (data['draw'] === true) {
    const { player1, player2 } = data;
    if (
      data['endReason'] !== 'moveLimit' ||
      data['winner'] !== null ||
      data['loser'] !== null ||
      !isPerson(player1) ||
      !isPerson(player2) ||
      player1.id === player2.id
    ) {
      throw malformed('game.finished');
    }
    return data as unknown as GameDrawn;
  }
  const { winner, loser } = data;
  if (
    (data['draw'] !== false && data['draw'] !== undefined) ||
    !isPerson(winner) ||
    !isPerson(loser) ||
    winner.id === loser.id ||
    !WON_REASONS.includes(data['endReason'])
  ) {
    throw malformed('game.finished');
  }
  // A game.finished from before draws existed has no `draw`: it always had a winner.
  return { ...data, draw: false } as unknown as GameWon;
}

/** When the event happened, in ms; events without a usable time count as the epoch. */
export function occurredAtMs(occurredAt: unknown): number {
  const ms = typeof occurredAt === 'string' ? Date.parse(occurredAt) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}
