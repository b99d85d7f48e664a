import { AppError, COMMON_MESSAGES, type UserTokens } from '@oasis198/contracts';
import { jwtVerify } from 'jose';
import type { KeyObject } from 'node:crypto';

/**
 * The one algorithm access tokens are signed with and the only one accepted: ES256, so that only
 * auth holds the private key and gateways check tokens with the public one.
 */
export const TOKEN_ALGORITHM = 'ES256';
/** Longest token string looked at; anything longer is refused unread. */
export const MAX_TOKEN_LENGTH = 4096;

/** What an access token says once its signature, algorithm, issuer and expiry are checked. */
export interface VerifiedToken {
  userId: string;
  name: string;
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** Issue time, Unix ms (claim `iat`, written with milliseconds): revocations by time compare it. */
  issuedAt: number;
  /** The login behind the token, Unix seconds (claim `auth_time`). */
  authTime: number;
  /** The user's token version (claim `tv`), which tokens of an earlier release carry. */
  tokenVersion?: number;
}

/**
 * Checks an access token's signature (ES256 pinned, so `alg: none`, or HS256 with the public key
 * as its secret, is refused), issuer, expiry and claim types; anything wrong is UNAUTHORIZED with
 * the one message.
 * Auth, which signs, and the gateway, which checks every request, share this one reading.
 */
export async function verifyAccessToken(
  token: unknown,
  publicKey: KeyObject,
  issuer: string,
): Promise<VerifiedToken> {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH)
    throw invalidToken();
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, publicKey, {
      algorithms: [TOKEN_ALGORITHM],
      issuer,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    }));
  } catch {
    throw invalidToken();
  }
  return accessTokenClaims(payload);
}

/**
 * The claims of a token whose signature, algorithm, issuer and expiry are already checked, with
 * their types: `sub`, `jti` and `name` strings, `exp` and `iat` numbers (a token without `exp`
 * would never expire), `auth_time` a number when present. Anything else is UNAUTHORIZED.
 */
export function accessTokenClaims(payload: unknown): VerifiedToken {
  const { sub, jti, exp, iat, name, auth_time, tv } = (payload ?? {}) as Record<string, unknown>;
  if (
    typeof sub !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number' ||
    typeof iat !== 'number' ||
    typeof name !== 'string' ||
    (auth_time !== undefined && typeof auth_time !== 'number') ||
    (tv !== undefined && !Number.isInteger(tv))
  ) {
    throw invalidToken();
  }
  // A token without auth_time comes from a login or registration, which happened when it was issued.
  const authTime = typeof auth_time === 'number' ? auth_time : Math.floor(iat);
  const claims: VerifiedToken = { userId: sub, name, jti, exp, issuedAt: Math.round(iat * 1000), authTime };
  if (typeof tv === 'number') claims.tokenVersion = tv;
  return claims;
}

/**
 * Whether a user's token record (TokenRecords.user) voids a well-signed token of that user: the
 * account is deleted, the token was logged out, or it was issued before a password change (the
 * token that made the change excepted). Auth and every gateway replica judge by this one rule.
 */
export function isTokenVoid(
  record: UserTokens | undefined,
  token: Pick<VerifiedToken, 'jti' | 'issuedAt' | 'tokenVersion'>,
): boolean {
  if (!record) return false;
  if (record.deleted) return true;
  if (
    record.tokenVersion !== undefined &&
    token.tokenVersion !== undefined &&
    token.tokenVersion < record.tokenVersion &&
    token.jti !== record.keep
  )
    return true;
  if (
    record.revokedBefore !== undefined &&
    token.issuedAt < record.revokedBefore &&
    token.jti !== record.keep
  )
    return true;
  if (record.loggedOutThrough !== undefined && token.issuedAt <= record.loggedOutThrough) return true;
  return record.loggedOut?.some((entry) => entry.jti === token.jti) ?? false;
}

export const invalidToken = (): AppError => new AppError('UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
