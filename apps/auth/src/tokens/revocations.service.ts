import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  AppError,
  COMMON_MESSAGES,
  KvBuckets,
  TokenRecords,
  type UserName,
  userNameSchema,
  type UserTokens,
  userTokensSchema,
} from '@oasis198/contracts';
import {
  CONFIG,
  isTokenVoid,
  isWrongRevision,
  JetStreamService,
  LOGGER,
  type Logger,
  openKvBucket,
  type VerifiedToken,
  withJetStreamRetry,
} from '@oasis198/service-kit';
import { JSONCodec, type KV, nanos } from 'nats';
import type { z } from 'zod';
import type { AuthConfig } from '../config';
import { withDeletion, withLogout, withRevokedBefore } from './user-tokens';

const codec = JSONCodec<unknown>();
/**
 * Writes of one record that lose a compare-and-set to a concurrent one before giving up: of n
 * writers of one user's record at once, one wins each round, so a burst of logouts on all of a
 * user's devices takes up to n rounds.
 */
const MAX_ATTEMPTS = 25;

/**
 * Everything that ends a token before its expiry, or changes what it says: logouts, password
 * changes, deletions and renames. Each is written to the token bucket (KvBuckets.tokens), which
 * every gateway replica watches and holds in memory, so gateways check tokens with no round trip
 * to auth; auth.verify reads the same records. One key per user (TokenRecords): the bucket grows
 * with the number of users, not with logins. A change is answered only after its record is
 * stored; the bucket's max age is the token lifetime, so no record outlives the tokens it concerns.
 */
@Injectable()
export class RevocationsService implements OnModuleInit {
  private bucket?: KV;

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: AuthConfig,
  ) {}

  /** Creates the token bucket when missing and keeps its limits up to date (auth owns it). */
  async onModuleInit(): Promise<void> {
    const ttlMs = this.config.JWT_TTL_S * 1000;
    const maxBytes = this.config.TOKENS_BUCKET_MAX_BYTES;
    const limits = { max_age: nanos(ttlMs), max_bytes: maxBytes };
    const { kv, updated } = await openKvBucket(
      this.jetstream.nc,
      KvBuckets.tokens,
      { history: 1, ttl: ttlMs, max_bytes: maxBytes, replicas: this.jetstream.streamReplicas },
      (config) =>
        config.max_age !== limits.max_age || config.max_bytes !== limits.max_bytes ? limits : undefined,
    );
    if (updated)
      this.logger.info({ bucket: KvBuckets.tokens, ttlMs, maxBytes }, 'updated the token bucket limits');
    this.bucket = kv;
  }

  /**
   * Logs one token out (DECISIONS: logout revokes the token it is called with); the user's record
   * stays bounded (withLogout). Repeating it changes nothing.
   */
  async revoke(token: Pick<VerifiedToken, 'userId' | 'jti' | 'issuedAt'>): Promise<void> {
    const limits = { ...this.times(), max: this.config.TOKENS_LOGGED_OUT_PER_USER };
    await this.write(TokenRecords.user(token.userId), (current) => withLogout(current, token, limits));
  }

  /**
   * Voids every token of the user issued before `at` (Unix ms) but `keep`: written before a
   * password change is stored (the caller's token is kept) and before a deletion (none is kept),
   * so a change that is confirmed never leaves an old token working. Should the change itself then
   * fail, the user only has to log in again on their other devices.
   */
  async revokeBefore(userId: string, at: number, keep?: string): Promise<void> {
    const times = this.times();
    await this.write(TokenRecords.user(userId), (current) => withRevokedBefore(current, at, keep, times));
  }

  /** After a deletion: every token of the user is void, whenever it was issued. */
  async userDeleted(userId: string): Promise<void> {
    const times = this.times();
    await this.write(TokenRecords.user(userId), (current) => withDeletion(current, times));
  }

  /**
   * Whether the token bucket voids a well-signed token (auth.verify): the same rule the gateways
   * apply. 503 when the bucket cannot be read: a token is not confirmed while it could be void.
   */
  async isRevoked(
    token: Pick<VerifiedToken, 'userId' | 'jti' | 'issuedAt' | 'tokenVersion'>,
  ): Promise<boolean> {
    const kv = this.bucket;
    if (!kv) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    let stored: unknown;
    let loggedOut: boolean;
    try {
      // A per-token key a bucket may still hold counts too (TokenRecords.token).
      const [entry, single] = await Promise.all([
        withJetStreamRetry(() => kv.get(TokenRecords.user(token.userId))),
        withJetStreamRetry(() => kv.get(TokenRecords.token(token.jti))),
      ]);
      stored = entry?.operation === 'PUT' && entry.value.length ? codec.decode(entry.value) : undefined;
      loggedOut = single?.operation === 'PUT';
    } catch (error) {
      this.logger.error({ err: error }, 'could not read a token record');
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
    if (loggedOut) return true;
    if (stored === undefined) return false;
    const record = userTokensSchema.safeParse(stored);
    // A record that cannot be read voids the user's tokens rather than let a revoked one pass.
    return !record.success || isTokenVoid(record.data, token);
  }

  /** After a rename: gateways show the new name for tokens that carry the old one. */
  async renamed(userId: string, name: string, at: number): Promise<void> {
    const { now, ttlMs } = this.times();
    await this.write<UserName>(
      TokenRecords.name(userId),
      (current) => (current && current.at > at ? undefined : { name, at, until: now + ttlMs }),
      userNameSchema,
    );
  }

  private times(): { now: number; ttlMs: number } {
    return { now: Date.now(), ttlMs: this.config.JWT_TTL_S * 1000 };
  }

  /**
   * Writes a key by compare-and-set on its revision, so that of two concurrent changes the later
   * one stays (`next` sees the stored value; undefined: it is already newer, write nothing).
   * A write that cannot be stored answers 503: the change is not confirmed while gateways could
   * still accept what it ended, and repeating it is safe.
   */
  private async write<T extends object = UserTokens>(
    key: string,
    next: (current: T | undefined) => T | undefined,
    schema: z.ZodType<T> = userTokensSchema as unknown as z.ZodType<T>,
  ): Promise<void> {
    const kv = this.bucket;
    if (!kv) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    try {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const entry = await withJetStreamRetry(() => kv.get(key));
        // A value that does not parse is ignored by gateways too: it is written over.
        const stored =
          entry?.operation === 'PUT' && entry.value.length
            ? schema.safeParse(codec.decode(entry.value)).data
            : undefined;
        const value = next(stored);
        if (!value) return;
        try {
          // A retried put that was stored already loses its race: the next round reads it back.
          await withJetStreamRetry(() =>
            kv.put(key, codec.encode(value), { previousSeq: entry?.revision ?? 0 }),
          );
          return;
        } catch (error) {
          if (!isWrongRevision(error)) throw error;
        }
        // A random pause, so that writers that lost together do not collide again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
      throw new Error(`${key} kept changing`);
    } catch (error) {
      this.logger.error({ err: error, key }, 'could not store a token record');
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
  }
}
