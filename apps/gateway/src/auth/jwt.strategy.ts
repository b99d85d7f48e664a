import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import {
  accessTokenClaims,
  CONFIG,
  invalidToken,
  MAX_TOKEN_LENGTH,
  TOKEN_ALGORITHM,
  type VerifiedToken,
  verifyAccessToken,
} from '@oasis198/service-kit';
import type { Request } from 'express';
import { createPublicKey, type KeyObject } from 'node:crypto';
import passport from 'passport';
import { Strategy, type StrategyOptionsWithoutRequest, type VerifyCallback } from 'passport-jwt';
import { type GatewayConfig, rpcTimeoutMs } from '../config';
import { TokenRevocations } from './token-revocations';

/** The token of an `Authorization: Bearer <token>` header; any other header is no token. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1] ?? null;
}

let strategies = 0;

/**
 * passport-jwt's strategy registered under a name of its own (passport-jwt names every instance
 * 'jwt', and passport keeps one registry per process): two gateway apps in one process, as the
 * integration tests run replicas, must not judge tokens with each other's revocations.
 */
class NamedJwtStrategy extends Strategy {
  constructor(options: StrategyOptionsWithoutRequest, verify: VerifyCallback) {
    super(options, verify);
    this.name = `jwt-${++strategies}`;
  }
}

/**
 * Bearer tokens, checked in this replica with no round trip. passport-jwt checks the signature,
 * algorithm (ES256 only), issuer and expiry with auth's public key; `validate` then reads the claims and
 * asks this replica's copy of the token bucket what a signature cannot say (logouts, password
 * changes, deletions; renames). While that copy is not caught up, a call waits for it, then 503.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(NamedJwtStrategy) implements OnApplicationShutdown {
  /**
   * How long a call waits for the revocations to catch up: after a reconnect to another NATS node
   * the watch starts again, and takes a stream election when the bucket's leader was the node lost.
   */
  private readonly catchUpWaitMs: number;
  private readonly key: KeyObject;
  private readonly issuer: string;

  constructor(
    @Inject(CONFIG) config: GatewayConfig,
    private readonly revocations: TokenRevocations,
  ) {
    // A key object made once: given PEM text, jsonwebtoken would parse it again on every call.
    // @types/passport-jwt names only string and Buffer; passport-jwt hands the key to jsonwebtoken
    // as it is, which takes a KeyObject.
    const key = createPublicKey(config.JWT_PUBLIC_KEY) as unknown as Buffer;
    super({
      jwtFromRequest: bearerToken,
      // Tokens longer than any auth signs are refused unread.
      secretOrKeyProvider: (
        _request: unknown,
        token: string,
        done: (error: unknown, key?: Buffer) => void,
      ) => (token.length > MAX_TOKEN_LENGTH ? done(invalidToken()) : done(null, key)),
      algorithms: [TOKEN_ALGORITHM],
      issuer: config.JWT_ISSUER,
    });
    this.catchUpWaitMs = rpcTimeoutMs(config);
    this.key = key as unknown as KeyObject;
    this.issuer = config.JWT_ISSUER;
  }

  /**
   * The caller behind a well-signed token: 401 when its claims are wrong or it was ended; 503 when
   * the revocations are not caught up within the wait for a service's answer.
   */
  validate(payload: unknown): Promise<TokenClaims> {
    return this.caller(accessTokenClaims(payload));
  }

  /**
   * A token that came another way than a header (the room socket), checked as passport-jwt checks
   * one; callerOf then asks what a signature cannot say, on each request it makes.
   */
  verifyToken(token: string): Promise<VerifiedToken> {
    return verifyAccessToken(token, this.key, this.issuer);
  }

  /** The caller behind a verified token now: 401 once it has expired or was ended, its name since a rename. */
  callerOf(claims: VerifiedToken): Promise<TokenClaims> {
    if (claims.exp * 1000 <= Date.now()) return Promise.reject(invalidToken());
    return this.caller(claims);
  }

  private async caller(claims: VerifiedToken): Promise<TokenClaims> {
    if (!(await this.revocations.whenCaughtUp(this.catchUpWaitMs))) {
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
    if (this.revocations.refuses(claims)) throw invalidToken();
    const name = this.revocations.nameOf(claims.userId) ?? claims.name;
    const { userId, jti, exp, issuedAt, authTime } = claims;
    return { userId, name, jti, exp, issuedAt, authTime };
  }

  onApplicationShutdown(): void {
    passport.unuse(this.name);
  }
}
