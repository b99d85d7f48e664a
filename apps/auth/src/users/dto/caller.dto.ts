import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import { asObject } from './fields';

/** The verified caller the gateway forwards with a request; without one the request is refused. */
export function parseCaller(payload: unknown): TokenClaims {
  const { caller } = asObject(payload);
  const { userId, name, jti, exp } = asObject(caller);
  if (
    typeof userId !== 'string' ||
    typeof name !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number'
  ) {
    throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  }
  return { userId, name, jti, exp };
}
