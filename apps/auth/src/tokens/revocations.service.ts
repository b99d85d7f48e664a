import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Broadcasts, type TokensRevoked } from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { AuthConfig } from '../config';
import { RevokedToken } from './revoked-token.schema';

/**
 * The revocation list of single tokens (logout) and the broadcasts that make every gateway drop
 * cached verifications at once. Revoking all of a user's tokens needs no list: the user's token
 * version moves on (password change) or the user is gone (deletion).
 */
@Injectable()
export class RevocationsService implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectModel(RevokedToken.name) private readonly model: Model<RevokedToken>,
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: AuthConfig,
  ) {}

  /** Revokes one token until its expiry (Unix seconds). Repeating it changes nothing. */
  async revoke(jti: string, userId: string, exp: number): Promise<void> {
    await this.model.updateOne(
      { _id: jti },
      { $setOnInsert: { userId, expiresAt: new Date(exp * 1000) } },
      { upsert: true },
    );
    this.announce({ jti });
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.model.exists({ _id: jti })) !== null;
  }

  /** Tells gateways that tokens stopped being valid (after the change is stored). */
  announce(message: TokensRevoked): void {
    try {
      this.jetstream.broadcast(Broadcasts.tokensRevoked, message);
    } catch (error) {
      // Gateways then trust a cached verification until TOKEN_CACHE_MS runs out; nothing more.
      this.logger.warn({ err: error }, 'could not broadcast a token revocation');
    }
  }

  /** Removes entries whose tokens have expired anyway. */
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
}
