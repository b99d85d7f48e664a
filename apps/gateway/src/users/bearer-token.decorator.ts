import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import type { Request } from 'express';
import { bearerToken } from '../auth/jwt.strategy';
import { clientAddressKey, IPV6_PREFIX_SETTING } from '../http/client-address';

/** The raw bearer token of a request that AuthGuard has let through. */
export const BearerToken = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const token = bearerToken(context.switchToHttp().getRequest<Request>());
  if (!token) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  return token;
});

/**
 * The client's address (behind a proxy, as TRUST_PROXY allows) as the per-address limits count it:
 * an IPv6 client by its LIMIT_IPV6_PREFIX network (clientAddressKey).
 */
export const ClientAddress = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const request = context.switchToHttp().getRequest<Request>();
  return clientAddressKey(request.ip, request.app.get(IPV6_PREFIX_SETTING) as number);
});
