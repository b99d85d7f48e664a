import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, COMMON_MESSAGES, KvBuckets } from '@oasis198/contracts';
import {
  type LimitRule,
  openSharedLimits,
  rateLimited,
  type Reservation,
  type SharedLimit,
  type SharedLimitOptions,
  sharedLimitsOn,
  type VersionedStore,
} from '@oasis198/service-kit';
import type { NatsConnection } from 'nats';
import type { Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import type { GatewayConfig } from '../config';
import { ApiError } from './openapi';

/** The header of every 429, for the API description: how long until the limit's window ends. */
export const RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'Seconds until another attempt is accepted.', schema: { type: 'integer' } },
} as const;

/** A 429 with Retry-After in the API description. */
export const ApiRateLimited = (description: string) =>
  ApiError(429, description, { headers: RETRY_AFTER_HEADER });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * The gateway's counting limits (DECISIONS "Fair play"). Their counts live in one NATS KV bucket
 * that every gateway replica shares, so N replicas together allow what one would.
 */
export function gatewayLimitRules(config: GatewayConfig) {
  const loginWindowMs = config.LOGIN_FAILURE_WINDOW_S * 1000;
  return {
    loginAccount: { max: config.LOGIN_MAX_FAILURES_PER_ACCOUNT, windowMs: loginWindowMs },
    loginAddress: { max: config.LOGIN_MAX_FAILURES_PER_ADDRESS, windowMs: loginWindowMs },
    register: { max: config.REGISTER_MAX_PER_WINDOW, windowMs: config.REGISTER_WINDOW_S * 1000 },
    roomCreates: { max: config.ROOM_CREATES_PER_MINUTE, windowMs: MINUTE_MS },
    roomLeaves: { max: config.ROOM_LEAVES_PER_MINUTE, windowMs: MINUTE_MS },
    roomEdits: { max: config.ROOM_EDITS_PER_SECOND, windowMs: 1000 },
    rewardWrites: { max: config.REWARD_WRITES_PER_MINUTE, windowMs: MINUTE_MS },
    loginSuccesses: { max: config.LOGIN_SUCCESSES_PER_MINUTE, windowMs: MINUTE_MS },
    logouts: { max: config.LOGOUTS_PER_MINUTE, windowMs: MINUTE_MS },
    accountEdits: { max: config.ACCOUNT_EDITS_PER_HOUR, windowMs: HOUR_MS },
    passwordAccount: { max: config.PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT, windowMs: MINUTE_MS },
    passwordAddress: { max: config.PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS, windowMs: MINUTE_MS },
    forgotAddress: { max: config.FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS },
    resetMails: { max: config.RESET_MAILS_PER_ACCOUNT_PER_HOUR, windowMs: HOUR_MS },
  } satisfies Record<string, LimitRule>;
}

export type GatewayLimitName = keyof ReturnType<typeof gatewayLimitRules>;
/** The limits counted per user (the verified caller's id). */
export type PerUserLimitName = Extract<
  GatewayLimitName,
  'roomCreates' | 'roomLeaves' | 'roomEdits' | 'rewardWrites' | 'logouts' | 'accountEdits'
>;

/** The gateway's shared limits, by name (a provider of the core module). */
export class GatewayLimits {
  constructor(readonly limits: Record<GatewayLimitName, SharedLimit>) {}

  static async open(
    nc: NatsConnection,
    config: GatewayConfig,
    options: SharedLimitOptions = {},
  ): Promise<GatewayLimits> {
    return new GatewayLimits(
      await openSharedLimits(nc, KvBuckets.limits, gatewayLimitRules(config), options),
    );
  }

  /** The same limits on another store (unit tests: MemoryStore). */
  static on(store: VersionedStore, config: GatewayConfig, options: SharedLimitOptions = {}): GatewayLimits {
    return new GatewayLimits(sharedLimitsOn(store, gatewayLimitRules(config), options));
  }

  get(name: GatewayLimitName): SharedLimit {
    return this.limits[name];
  }
}

/** The failures auth answers for wrong credentials (not outages, which are no one's attempt). */
const isRefusal = (error: unknown) =>
  error instanceof AppError && (error.code === 'VALIDATION' || error.code === 'UNAUTHORIZED');

/** Bookkeeping after the answer is known: a failure of the limit store must not change that answer. */
const quietly = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    () => undefined,
  );

/**
 * Logins (DECISIONS "Fair play"): failed ones per account (the trimmed, lower-cased e-mail) and per
 * client address, successful ones per account, and password checks per account and per address.
 * Each attempt is reserved on all of them BEFORE it is judged (its shape, then auth's check of the
 * password), so parallel guesses count; at any limit the answer is 429 with Retry-After (the
 * longest wait), and nothing is judged. An attempt with no e-mail counts on the address only.
 * A success clears the account's failures and gives back this attempt's failure on the address
 * (its earlier failures stay); a refusal gives back its success; an outage (auth not answering)
 * gives everything back.
 */
@Injectable()
export class LoginThrottle {
  constructor(private readonly limits: GatewayLimits) {}

  async attempt<T>(clientAddress: string, email: string | undefined, login: () => Promise<T>): Promise<T> {
    const failures = this.limits.get('loginAccount');
    const successes = this.limits.get('loginSuccesses');
    const account = email?.trim().toLowerCase();
    const taken = await reserveInTurn(
      [
        [this.limits.get('loginAddress'), clientAddress],
        [this.limits.get('passwordAddress'), clientAddress],
      ],
      account === undefined
        ? []
        : [
            [failures, account],
            [successes, account],
            [this.limits.get('passwordAccount'), account],
          ],
    );
    let result: T;
    try {
      result = await login();
    } catch (error) {
      await giveBack(taken, (limit) => !isRefusal(error) || limit === successes);
      throw error;
    }
    await Promise.all([
      giveBack(taken, (limit) => limit === this.limits.get('loginAddress')),
      account !== undefined && quietly(failures.reset(account)),
    ]);
    return result;
  }
}

/** Gives back the reservations on the limits `which` picks; a failure of the store changes no answer. */
const giveBack = (taken: Array<[SharedLimit, Reservation]>, which: (limit: SharedLimit) => boolean) =>
  quietly(Promise.all(taken.filter(([limit]) => which(limit)).map(([limit, r]) => limit.refund(r))));

/**
 * Reserves one attempt on each limit, together, and resolves each limit with its reservation. If
 * any is refused (or cannot be checked), the others are given back and the call fails: 429 with the
 * longest Retry-After (or 503).
 */
async function reserveAll(
  tries: ReadonlyArray<readonly [SharedLimit, string]>,
): Promise<Array<[SharedLimit, Reservation]>> {
  const settled = await Promise.allSettled(tries.map(([limit, key]) => limit.reserve(key)));
  const taken: Array<[SharedLimit, Reservation]> = [];
  let failure: unknown;
  settled.forEach((outcome, i) => {
    const limit = tries[i]?.[0];
    if (outcome.status === 'rejected') failure ??= outcome.reason;
    else if (limit) taken.push([limit, outcome.value]);
  });
  const refused = taken.filter(([, r]) => !r.allowed).map(([, r]) => r);
  if (failure !== undefined || refused.length) {
    await giveBack(taken, () => true);
    if (failure !== undefined) throw failure;
    throw rateLimited(Math.max(...refused.map((r) => r.retryAfterMs)));
  }
  return taken;
}

/**
 * reserveAll on the client address's limits first, then on the account's: a refused address
 * writes no key for the account, so a loop of made-up e-mails from one address leaves a bounded
 * number of keys. A refused account gives the address's attempts back.
 */
async function reserveInTurn(
  byAddress: ReadonlyArray<readonly [SharedLimit, string]>,
  byAccount: ReadonlyArray<readonly [SharedLimit, string]>,
): Promise<Array<[SharedLimit, Reservation]>> {
  const first = await reserveAll(byAddress);
  if (!byAccount.length) return first;
  try {
    return [...first, ...(await reserveAll(byAccount))];
  } catch (error) {
    await giveBack(first, () => true);
    throw error;
  }
}

/**
 * Registrations per client address (every attempt counts, at most REGISTER_MAX_PER_WINDOW within
 * REGISTER_WINDOW_S), each also a password hash on the address and on the e-mail.
 */
@Injectable()
export class RegisterThrottle {
  constructor(private readonly limits: GatewayLimits) {}

  async attempt<T>(clientAddress: string, email: string, register: () => Promise<T>): Promise<T> {
    await reserveInTurn(
      [
        [this.limits.get('register'), clientAddress],
        [this.limits.get('passwordAddress'), clientAddress],
      ],
      [[this.limits.get('passwordAccount'), email.trim().toLowerCase()]],
    );
    return register();
  }
}

/** The account edits that cost more than the per-user count (LimitPerUser('accountEdits')). */
@Injectable()
export class AccountEditThrottle {
  constructor(private readonly limits: GatewayLimits) {}

  /** A password change is a password hash, counted on the client address and on the user. */
  async passwordChange(clientAddress: string, userId: string): Promise<void> {
    await reserveInTurn(
      [[this.limits.get('passwordAddress'), clientAddress]],
      [[this.limits.get('passwordAccount'), userId]],
    );
  }

  /**
   * An e-mail change answers whether the new e-mail is taken, as a registration does: it counts on
   * the address's registrations, so that question costs the same by either call.
   */
  async emailChange(clientAddress: string): Promise<void> {
    await reserveAll([[this.limits.get('register'), clientAddress]]);
  }
}

/**
 * Forgotten passwords (DECISIONS "Forgotten password"): every request counts on its client address
 * (over the limit: 429), then on its e-mail; past the e-mail's mails an hour the request answers as
 * any other and mails nothing, so no answer tells an account from a made-up e-mail.
 */
@Injectable()
export class PasswordResetThrottle {
  constructor(private readonly limits: GatewayLimits) {}

  async forgot(clientAddress: string, email: string, send: () => Promise<unknown>): Promise<void> {
    await reserveAll([[this.limits.get('forgotAddress'), clientAddress]]);
    const mails = this.limits.get('resetMails');
    const reservation = await mails.reserve(email.trim().toLowerCase());
    if (!reservation.allowed) return;
    try {
      await send();
    } catch (error) {
      // Nothing was mailed: auth did not answer.
      await quietly(mails.refund(reservation));
      throw error;
    }
  }

  /** A reset is a password hash, counted on the client address. */
  async reset(clientAddress: string): Promise<void> {
    await reserveAll([[this.limits.get('passwordAddress'), clientAddress]]);
  }
}

// ------------------------------------------------------------------------------ per-user writes

const PER_USER_LIMIT = Symbol('per-user-limit');
type PickLimit = (request: AuthenticatedRequest) => PerUserLimitName;

/**
 * Counts every call of the route against a per-user limit (the caller from the verified token),
 * before it is forwarded; over the limit: 429 with Retry-After. Use it behind AuthGuard. `limit`
 * may depend on the request (a leave and a move share one route).
 */
export const LimitPerUser = (limit: PerUserLimitName | PickLimit, description: string) =>
  applyDecorators(
    SetMetadata(PER_USER_LIMIT, typeof limit === 'function' ? limit : () => limit),
    UseInterceptors(PerUserLimitInterceptor),
    ApiRateLimited(description),
  );

/** Interceptors run after guards, so the caller is known; before pipes, so even a refused body counts. */
@Injectable()
export class PerUserLimitInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: GatewayLimits,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const pick = this.reflector.get<PickLimit | undefined>(PER_USER_LIMIT, context.getHandler());
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const userId = request.caller?.userId;
    if (!userId) throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
    if (pick) await countPerUser(this.limits, pick(request), userId);
    return next.handle();
  }
}

/** One call of a user's against a per-user limit; over it, 429 with Retry-After. */
export async function countPerUser(
  limits: GatewayLimits,
  limit: PerUserLimitName,
  userId: string,
): Promise<void> {
  await reserveAll([[limits.get(limit), userId]]);
}
