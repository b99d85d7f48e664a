import { AppError, COMMON_MESSAGES, parseOr, type TokenClaims, tokenClaimsSchema } from '@oasis198/contracts';
import { z } from 'zod';

/**
 * A NATS request as sent: any JSON, so any field may be missing or wrong (hence Partial; a field of
 * anything but an object reads as missing). parseCaller and the services judge each field.
 */
export type Sent<T> = Partial<T> | null | undefined;

const callerRequestSchema = z.object({ caller: tokenClaimsSchema });

/**
 * The verified caller the gateway forwards with a request (`{ caller: TokenClaims, ... }`), and
 * only its claims. Services trust only this, never ids in the body; a request without it is refused.
 */
export const parseCaller = (request: unknown): TokenClaims =>
  parseOr(callerRequestSchema, request, () => new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized))
    .caller;
