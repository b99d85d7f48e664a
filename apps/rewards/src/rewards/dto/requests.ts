import { AppError, REWARD_MESSAGES, REWARDS_MAX_PAGE_SIZE, REWARDS_PAGE_SIZE } from '@oasis198/contracts';
import { validateUsername } from '@oasis198/game-rules';
import { asObject } from '@oasis198/service-kit';

/** A path id: a non-empty string (anything else cannot name a record). */
export function parseId(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) {
    throw new AppError('NOT_FOUND', REWARD_MESSAGES.notFound);
  }
  return value;
}

/** Page 1.., page size 1..REWARDS_MAX_PAGE_SIZE; missing values take the defaults. */
export function parsePage(request: Record<string, unknown>): { page: number; pageSize: number } {
  const page = request['page'] ?? 1;
  const pageSize = request['pageSize'] ?? REWARDS_PAGE_SIZE;
  if (typeof page !== 'number' || !Number.isInteger(page) || page < 1) {
    throw new AppError('VALIDATION', 'page must be a whole number of at least 1.');
  }
  if (
    typeof pageSize !== 'number' ||
    !Number.isInteger(pageSize) ||
    pageSize < 1 ||
    pageSize > REWARDS_MAX_PAGE_SIZE
  ) {
    throw new AppError('VALIDATION', `pageSize must be a whole number from 1 to ${REWARDS_MAX_PAGE_SIZE}.`);
  }
  return { page, pageSize };
}

/**
 * A body with exactly the allowed fields: points, coins, levels, titles or anything else a client
 * might send are refused, never stored.
 */
export function onlyFields(
  body: unknown,
  allowed: readonly string[],
  message: string,
): Record<string, unknown> {
  const fields = asObject(body);
  const extra = Object.keys(fields).filter((key) => !allowed.includes(key));
  if (extra.length)
    throw new AppError('VALIDATION', message, Object.fromEntries(extra.map((key) => [key, message])));
  return fields;
}

/** playerName follows the username rule of SPEC §5. */
export function parsePlayerName(value: unknown): string {
  const error = validateUsername(value);
  if (error) throw new AppError('VALIDATION', error, { playerName: error });
  return value as string;
}
