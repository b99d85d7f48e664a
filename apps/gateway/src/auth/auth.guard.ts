import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { AppError, COMMON_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import type { Request } from 'express';
import { TokenVerifier } from './token-verifier';

export interface AuthenticatedRequest extends Request {
  caller?: TokenClaims;
}

/** Requires a valid bearer token; the verified claims become the caller. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly verifier: TokenVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
    request.caller = await this.verifier.verify(token);
    return true;
  }
}

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

/** The verified caller of a route behind AuthGuard. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): TokenClaims => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  return caller;
});
