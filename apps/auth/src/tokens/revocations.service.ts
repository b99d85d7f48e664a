import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import {
  AppError,
  COMMON_MESSAGES,
  KvBuckets,
  TokenRecords,
  type TokenRevoked,
  type UserName,
  type UserTokens,
} from '@oasis198/contracts';
import {
  CONFIG,
  isWrongRevision,
  JetStreamService,
  LOGGER,
  type Logger,
  openKvBucket,
} from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import { JSONCodec, type KV, nanos } from 'nats';
import type { AuthConfig } from '../config';
import { RevokedToken } from './revoked-token.schema';

const codec = JSONCodec<unknown>();
/** Writes of one record that lose a compare-and-set to a concurrent one before giving up. */
const MAX_ATTEMPTS = 5;

/**
 * Everything that ends a token before its expiry, or changes what it says: logouts (also kept in
 * MongoDB for auth.verify), password changes, deletions and renames. Each is written to the token
 * bucket (KvBuckets.tokens), which every gateway replica watches and holds in memory, so gateways
 * check tokens with no round trip to auth. A change is answered only after its record is stored;
 * the bucket's max age is the token lifetime, so no record outlives the tokens it concerns.
 */
@Injectable()
export class RevocationsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private bucket?: KV;

  constructor(
    @InjectModel(RevokedToken.name) private readonly model: Model<RevokedToken>,
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
      { history: 1, ttl: ttlMs, max_bytes: maxBytes },
      (config) =>
        config.max_age !== limits.max_age || config.max_bytes !== limits.max_bytes ? limits : undefined,
    );
    if (updated)
      this.logger.info({ bucket: KvBuckets.tokens, ttlMs, maxBytes }, 'updated the token bucket limits');
    this.bucket = kv;
  }

  /** Revokes one token until its expiry (Unix seconds). Repeating it changes nothing. */
  async revoke(jti: string, userId: string, exp: number): Promise<void> {
    await this.model.updateOne(
      { _id: jti },
      { $setOnInsert: { userId, expiresAt: new Date(exp * 1000) } },
      { upsert: true },
    );
    const record: TokenRevoked = { until: exp * 1000 };
    await this.write(TokenRecords.token(jti), () => record);
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.model.exists({ _id: jti })) !== null;
  }

  /** After a password change: tokens of older versions are void, but the caller's (`keep`). */
  async versionChanged(userId: string, tokenVersion: number, keep: string): Promise<void> {
    await this.write(TokenRecords.user(userId), (current) => {
      const now = current as UserTokens | undefined;
      if (now && (now.deleted || now.tokenVersion >= tokenVersion)) return undefined; // a later change is stored
      return { tokenVersion, keep, until: this.until() } satisfies UserTokens;
    });
  }

  /** After a deletion: every token of the user is void. */
  async userDeleted(userId: string): Promise<void> {
    await this.write(TokenRecords.user(userId), (current) =>
      (current as UserTokens | undefined)?.deleted
        ? undefined
        : ({
            tokenVersion: Number.MAX_SAFE_INTEGER,
            deleted: true,
            until: this.until(),
          } satisfies UserTokens),
    );
  }

  /** After a rename: gateways show the new name for tokens that carry the old one. */
  async renamed(userId: string, name: string, at: number): Promise<void> {
    await this.write(TokenRecords.name(userId), (current) =>
      (current as UserName | undefined) && (current as UserName).at > at
        ? undefined
        : ({ name, at, until: this.until() } satisfies UserName),
    );
  }

  /** Removes MongoDB entries whose tokens have expired anyway (the bucket ages out by itself). */
  async sweep(now = new Date()): Promise<number> {
    const { deletedCount } = await this.model.deleteMany({ expiresAt: { $lt: now } });
    if (deletedCount) this.logger.info({ removed: deletedCount }, 'removed expired token revocations');
    return deletedCount;
  }

  onApplicationBootstrap(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error) => this.logger.warn({ err: error }, 'revocation sweep failed'));
    }, this.config.REVOCATION_SWEEP_S * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Records whose tokens were issued at the latest now expire by then. */
  private until(): number {
    return Date.now() + this.config.JWT_TTL_S * 1000;
  }

  /**
   * Writes a key by compare-and-set on its revision, so that of two concurrent changes the later
   * one stays (`next` sees the stored value; undefined: it is already newer, write nothing).
   * A write that cannot be stored answers 503: the change is not confirmed while gateways could
   * still accept what it ended, and repeating it is safe.
   */
  private async write(key: string, next: (current: unknown) => object | undefined): Promise<void> {
    const kv = this.bucket;
    if (!kv) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    try {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const entry = await kv.get(key);
        const stored =
          entry?.operation === 'PUT' && entry.value.length ? codec.decode(entry.value) : undefined;
        const value = next(stored);
        if (!value) return;
        try {
          await kv.put(key, codec.encode(value), { previousSeq: entry?.revision ?? 0 });
          return;
        } catch (error) {
          if (!isWrongRevision(error)) throw error;
        }
      }
      throw new Error(`${key} kept changing`);
    } catch (error) {
      this.logger.error({ err: error, key }, 'could not store a token record');
      throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    }
  }
}
