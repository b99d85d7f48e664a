import { Inject, Injectable } from '@nestjs/common';
import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import { CONFIG, TOKEN_ALGORITHM, type VerifiedToken, verifyAccessToken } from '@oasis198/service-kit';
import { SignJWT } from 'jose';
import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import type { AuthConfig } from '../config';

export interface TokenSubject {
  userId: string;
  name: string;
}

export interface SignedToken {
  token: string;
  jti: string;
  exp: number;
}

/**
 * Access tokens: JWTs signed with ES256 by auth's private key (pinned on verify, so `alg: none` or
 * another algorithm is refused; gateways check them with the public key), with an issuer, an expiry, an id (jti), the user id (sub), the name, the issue time
 * with milliseconds (iat) and the time of the login behind it (auth_time). Whether a well-signed
 * token is still valid (logged out, password changed, user deleted) is the SessionsService's question.
 */
@Injectable()
export class TokensService {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly ttlSeconds: number;
  private readonly issuer: string;
  private readonly reauthWindowS: number;

  constructor(
    @Inject(CONFIG)
    config: Pick<AuthConfig, 'JWT_PRIVATE_KEY' | 'JWT_TTL_S' | 'JWT_ISSUER' | 'REAUTH_WINDOW_S'>,
  ) {
    this.privateKey = createPrivateKey(config.JWT_PRIVATE_KEY);
    this.publicKey = createPublicKey(this.privateKey);
    this.ttlSeconds = config.JWT_TTL_S;
    this.issuer = config.JWT_ISSUER;
    this.reauthWindowS = config.REAUTH_WINDOW_S;
  }

  /** A token for a login made at `now` (Unix ms). */
  async sign(subject: TokenSubject, now = Date.now()): Promise<SignedToken> {
    const jti = randomUUID();
    // Milliseconds, as RFC 7519 allows: a password change voids tokens issued before it, and a
    // login a moment after it must not count as before.
    const iat = now / 1000;
    const exp = Math.floor(iat) + this.ttlSeconds;
    const token = await new SignJWT({ name: subject.name, auth_time: Math.floor(iat) })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
      .setSubject(subject.userId)
      .setJti(jti)
      .setIssuer(this.issuer)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.privateKey);
    return { token, jti, exp };
  }

  /** Checks signature, algorithm, issuer, expiry and claim types; anything wrong is UNAUTHORIZED. */
  verify(token: unknown): Promise<VerifiedToken> {
    return verifyAccessToken(token, this.publicKey, this.issuer);
  }

  /**
   * E-mail and password changes and deletion need a login within REAUTH_WINDOW_S (DECISIONS
   * "Re-authentication"): a token taken from a device or a log cannot take the account over.
   */
  assertRecentLogin(caller: TokenClaims, now = Date.now()): void {
    const { authTime } = caller;
    if (authTime === undefined || now / 1000 - authTime > this.reauthWindowS) {
      throw new AppError('reauth_required', COMMON_MESSAGES.reauthRequired);
    }
  }
}
