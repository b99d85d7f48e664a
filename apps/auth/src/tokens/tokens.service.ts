import { Inject, Injectable } from '@nestjs/common';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import { CONFIG } from '@oasis198/service-kit';
import { jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { AuthConfig } from '../config';

/** The one algorithm tokens are signed with and the only one accepted. */
export const TOKEN_ALGORITHM = 'HS256';
/** Longest token string looked at; anything longer is refused unread. */
const MAX_TOKEN_LENGTH = 4096;

export interface TokenSubject {
  userId: string;
  name: string;
  tokenVersion: number;
}

/** What a token says once its signature, algorithm, issuer and expiry are checked. */
export interface VerifiedToken {
  userId: string;
  name: string;
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** The user's token version when it was issued; a password change or deletion moves it on. */
  tokenVersion: number;
}

export interface SignedToken {
  token: string;
  jti: string;
  exp: number;
}

/**
 * Access tokens: JWTs signed with HS256 (pinned on verify, so `alg: none` or another algorithm is
 * refused), with an issuer, an expiry, an id (jti), the user id (sub), the name and the user's
 * token version (tv). Whether a well-signed token is still valid (revoked, user deleted, old
 * version) is the SessionsService's question.
 */
@Injectable()
export class TokensService {
  private readonly key: Uint8Array;
  private readonly ttlSeconds: number;
  private readonly issuer: string;

  constructor(@Inject(CONFIG) config: Pick<AuthConfig, 'JWT_SECRET' | 'JWT_TTL_S' | 'JWT_ISSUER'>) {
    this.key = new TextEncoder().encode(config.JWT_SECRET);
    this.ttlSeconds = config.JWT_TTL_S;
    this.issuer = config.JWT_ISSUER;
  }

  async sign(subject: TokenSubject, now = Date.now()): Promise<SignedToken> {
    const jti = randomUUID();
    const iat = Math.floor(now / 1000);
    const exp = iat + this.ttlSeconds;
    const token = await new SignJWT({ name: subject.name, tv: subject.tokenVersion })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
      .setSubject(subject.userId)
      .setJti(jti)
      .setIssuer(this.issuer)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, jti, exp };
  }

  /** Checks signature, algorithm, issuer, expiry and claim types; anything wrong is UNAUTHORIZED. */
  async verify(token: unknown): Promise<VerifiedToken> {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw invalid();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: this.issuer,
        requiredClaims: ['sub', 'jti', 'exp'],
      }));
    } catch {
      throw invalid();
    }
    const { sub, jti, exp, name, tv } = payload;
    if (
      typeof sub !== 'string' ||
      typeof jti !== 'string' ||
      typeof exp !== 'number' ||
      typeof name !== 'string' ||
      typeof tv !== 'number' ||
      !Number.isInteger(tv)
    ) {
      throw invalid();
    }
    return { userId: sub, name, jti, exp, tokenVersion: tv };
  }
}

export const invalid = (): AppError => new AppError('UNAUTHORIZED', COMMON_MESSAGES.invalidToken);
