import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';

/** A NATS request body as a plain object (anything else counts as empty). */
export function asObject(payload: unknown): Record<string, unknown> {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)
    : {};
}

/**
 * The verified caller the gateway forwards with a request (`{ caller: TokenClaims, ... }`).
 * Services trust only this, never ids in the body; a request without it is refused.
 */
export function parseCaller(request: unknown): TokenClaims {
  const { userId, name, jti, exp } = asObject(asObject(request)['caller']);
  if (
    typeof userId !== 'string' ||
    userId === '' ||
    typeof name !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number'
  ) {
    throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  }
  return { userId, name, jti, exp };
}
