import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { COMMON_MESSAGES, AppError, KvBuckets } from '@oasis198/contracts';
import { checkJoinPasscode } from '@oasis198/game-rules';
import {
  CONFIG,
  JetStreamService,
  limitsBucketBounds,
  LOGGER,
  type Logger,
  openSharedLimits,
  rateLimited,
  type SharedLimit,
} from '@oasis198/service-kit';
import type { RoomsConfig } from '../config';

/**
 * Wrong passcodes per room and player, and per room, shared by every rooms replica through the
 * limits KV bucket (opened at start-up).
 */
@Injectable()
export class PasscodeLimit implements OnModuleInit {
  private limits?: { byPlayer: SharedLimit; byRoom: SharedLimit };

  constructor(
    private readonly jetstream: JetStreamService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: RoomsConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const windowMs = this.config.PASSCODE_FAILURE_WINDOW_S * 1000;
    const { passcodes, passcodesPerRoom } = await openSharedLimits(
      this.jetstream.nc,
      KvBuckets.limits,
      {
        passcodes: { max: this.config.PASSCODE_MAX_FAILURES, windowMs },
        passcodesPerRoom: { max: this.config.PASSCODE_MAX_FAILURES_PER_ROOM, windowMs },
      },
      { logger: this.logger, bucket: limitsBucketBounds(this.config) },
    );
    this.limits = { byPlayer: passcodes, byRoom: passcodesPerRoom };
  }

  /**
   * A join of a room with a passcode is an attempt of that player on that room, and on that room
   * from anyone, counted BEFORE the passcode is judged, so parallel guesses count too. At
   * PASSCODE_MAX_FAILURES of the player, or PASSCODE_MAX_FAILURES_PER_ROOM of everyone, within the
   * window every such join answers 429 (the right passcode included) until it ends; a right
   * passcode gives its attempts back, a wrong one keeps them (DECISIONS "Fair play").
   */
  async countAttempt(
    room: { _id: string; passCode: string },
    playerId: string,
    passCode: unknown,
  ): Promise<void> {
    if (room.passCode === '') return;
    if (!this.limits) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
    const { byPlayer, byRoom } = this.limits;
    const mine = await byPlayer.reserve(`${room._id}:${playerId}`);
    if (!mine.allowed) throw rateLimited(mine.retryAfterMs);
    let everyone;
    try {
      everyone = await byRoom.reserve(room._id);
    } catch (error) {
      await byPlayer.refund(mine).catch(() => undefined);
      throw error;
    }
    if (!everyone.allowed) {
      // Not judged, so not the player's guess either.
      await byPlayer.refund(mine).catch(() => undefined);
      throw rateLimited(everyone.retryAfterMs);
    }
    if (checkJoinPasscode(passCode, room.passCode) === null) {
      // Best effort: the limit logs a store failure, and the right passcode is still let in.
      await Promise.all([byPlayer.refund(mine), byRoom.refund(everyone)]).catch(() => undefined);
    }
  }
}
