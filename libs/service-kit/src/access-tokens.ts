import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import { jwtVerify } from 'jose';

/** The one algorithm access tokens are signed with and the only one accepted. */
export const TOKEN_ALGORITHM = 'HS256';
/** Longest token string looked at; anything longer is refused unread. */
export const MAX_TOKEN_LENGTH = 4096;

/** What an access token says once its signature, algorithm, issuer and expiry are checked. */
export interface VerifiedToken {
  userId: string;
  name: string;
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** The user's token version when it was issued; a password change moves it on. */
  tokenVersion: number;
}

/**
 * Checks an access token's signature (HS256 pinned, so `alg: none` or another algorithm is
 * refused), issuer, expiry and claim types; anything wrong is UNAUTHORIZED with the one message.
 * Auth, which signs, and the gateway, which checks every request, share this one reading.
 */
export async function verifyAccessToken(
  token: unknown,
  key: Uint8Array,
  issuer: string,
): Promise<VerifiedToken> {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH)
    throw invalidToken();
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [TOKEN_ALGORITHM],
      issuer,
      requiredClaims: ['sub', 'jti', 'exp'],
    }));
  } catch {
    throw invalidToken();
  }
  return accessTokenClaims(payload);
}

/**
 * The claims of a token whose signature, algorithm, issuer and expiry are already checked, with
 * their types: `sub`, `jti` and `name` strings, `exp` a number (a token without one would never
 * expire), `tv` an integer. Anything else is UNAUTHORIZED.
 */
export function accessTokenClaims(payload: unknown): VerifiedToken {
  const { sub, jti, exp, name, tv } = (payload ?? {}) as Record<string, unknown>;
  if (
    typeof sub !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number' ||
    typeof name !== 'string' ||
    typeof tv !== 'number' ||
    !Number.isInteger(tv)
  ) {
    throw invalidToken();
  }
  return { userId: sub, name, jti, exp, tokenVersion: tv };
}

export const invalidToken = (): AppError => new AppError('UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
