import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, TOKEN_ALGORITHM, type VerifiedToken, verifyAccessToken } from '@oasis198/service-kit';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { AuthConfig } from '../config';

export interface TokenSubject {
  userId: string;
  name: string;
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
  verify(token: unknown): Promise<VerifiedToken> {
    return verifyAccessToken(token, this.key, this.issuer);
  }
}
