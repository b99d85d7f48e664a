import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import type { Request } from 'express';
import { bearerToken } from '../auth/jwt.strategy';

/** The raw bearer token of a request that AuthGuard has let through. */
export const BearerToken = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const token = bearerToken(context.switchToHttp().getRequest<Request>());
  if (!token) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  return token;
});

/** The client's address (behind a proxy, as TRUST_PROXY allows), for rate limits. */
export const ClientAddress = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    context.switchToHttp().getRequest<Request>().ip ?? 'unknown',
);
