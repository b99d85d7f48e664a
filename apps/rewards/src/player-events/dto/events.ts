import { AppError, type GameFinished, type UserDeleted, type UserRegistered } from '@oasis198/contracts';
import { END_REASONS } from '@oasis198/game-rules';

/** A payload that can never be applied: the consumer terminates it (JetStreamService, VALIDATION). */
const malformed = (what: string) => new AppError('VALIDATION', `malformed ${what} event`);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string =>
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

/** The fields of game.finished that rewards use. */
export function parseGameFinished(data: unknown): GameFinished {
  if (
    !isObject(data) ||
    !isId(data['gameId']) ||
    !isPerson(data['winner']) ||
    !isPerson(data['loser']) ||
    data['winner'].id === data['loser'].id ||
    !(END_REASONS as readonly unknown[]).includes(data['endReason']) ||
    typeof data['duration'] !== 'number'
  ) {
    throw malformed('game.finished');
  }
  return data as unknown as GameFinished;
}

/** When the event happened, in ms; events without a usable time count as the epoch. */
export function occurredAtMs(occurredAt: unknown): number {
  const ms = typeof occurredAt === 'string' ? Date.parse(occurredAt) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}
