import { createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import { invalidToken } from '@oasis198/service-kit';
import type { Request } from 'express';
import { bearerToken, JwtStrategy } from './jwt.strategy';

export interface AuthenticatedRequest extends Request {
  caller?: TokenClaims;
}

/**
 * Requires a valid bearer token (JwtStrategy, through passport); the verified claims become
 * `request.caller`. No token: 401 'unauthorized'; a bad or ended one: 401 'invalid token'; 503
 * while this replica's revocations are not caught up.
 */
@Injectable()
export class AuthGuard extends PassportAuthGuard() {
  constructor(strategy: JwtStrategy) {
    super({ defaultStrategy: strategy.name, property: 'caller', session: false });
  }

  override handleRequest<T>(error: unknown, caller: T | false, _info: unknown, context: ExecutionContext): T {
    if (error) throw error;
    if (caller) return caller;
    const request = context.switchToHttp().getRequest<Request>();
    throw bearerToken(request) ? invalidToken() : new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  }
}

/** The verified caller of a route behind AuthGuard. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): TokenClaims => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  return caller;
});
