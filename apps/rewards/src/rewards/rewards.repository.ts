import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { CHAMPION_TITLES, type ChampionTitle, PREMIUM_CATEGORIES } from '@oasis198/game-rules';
import { CONFIG, isDuplicateKeyError } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RewardsConfig } from '../config';
import { allFalse, DeletedPlayer, freshReward, Reward } from './reward.schema';

/** Points, coins and titles one player earns from one game. */
export interface Credit {
  playerId: string;
  /** The name the record gets if this game creates it. */
  playerName: string;
  points: number;
  coins: number;
  titles: readonly ChampionTitle[];
}

export type CreditOutcome = 'paid' | 'already-paid';

/**
 * Persistence of reward records. Every write is one atomic single-document update; a game is paid
 * to a player by an update guarded on the game id not being in the player's recent games.
 */
@Injectable()
export class RewardsRepository implements OnModuleInit {
  constructor(
    @InjectModel(Reward.name) private readonly rewards: Model<Reward>,
    @InjectModel(DeletedPlayer.name) private readonly deleted: Model<DeletedPlayer>,
    @Inject(CONFIG) private readonly config: Pick<RewardsConfig, 'RECENT_GAMES_KEPT'>,
  ) {}

  async onModuleInit(): Promise<void> {
    await Promise.all([this.rewards.init(), this.deleted.init()]);
  }

  findById(playerId: string): Promise<Reward | null> {
    return this.rewards.findById(playerId).lean<Reward>().exec();
  }

  /** A page of the leaderboard: most points first, then by name and id for a stable order. */
  async list(page: number, pageSize: number): Promise<{ items: Reward[]; total: number }> {
    const [items, total] = await Promise.all([
      this.rewards
        .find({})
        .sort({ 'assets.points': -1, playerName: 1, _id: 1 })
        .skip((page - 1) * pageSize)
        .limit(pageSize)
        .lean<Reward[]>()
        .exec(),
      this.rewards.countDocuments({}).exec(),
    ]);
    return { items, total };
  }

  /** Creates the record unless it exists (then nothing changes). True when this call created it. */
  async createIfMissing(playerId: string, playerName: string, nameAt: number): Promise<boolean> {
    const { _id, ...fields } = freshReward(playerId, playerName, nameAt);
    try {
      const result = await this.rewards.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
      return result.upsertedCount > 0;
    } catch (error) {
      // Another replica created it at the same moment.
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Sets the name if `at` is later than the name's last change; false otherwise or without a record. */
  async rename(playerId: string, playerName: string, at: number): Promise<boolean> {
    const result = await this.rewards.updateOne(
      { _id: playerId, nameAt: { $lt: at } },
      { $set: { playerName, nameAt: at } },
    );
    return result.matchedCount > 0;
  }

  async delete(playerId: string): Promise<boolean> {
    const { deletedCount } = await this.rewards.deleteOne({ _id: playerId });
    return deletedCount > 0;
  }

  /**
   * Pays one game to one player exactly once, creating the record if the game comes first. The
   * filter refuses a game already paid; for a missing record the upsert inserts it, and a
   * duplicate-key answer means the record appeared meanwhile (retry) or the game was paid.
   */
  async credit(gameId: string, credit: Credit): Promise<CreditOutcome> {
    const set = Object.fromEntries(credit.titles.map((title) => [`championStatus.${title}`, true]));
    const onInsert: Record<string, unknown> = {
      playerName: credit.playerName,
      nameAt: 0,
      categories: allFalse(PREMIUM_CATEGORIES),
    };
    for (const title of CHAMPION_TITLES) {
      if (!credit.titles.includes(title)) onInsert[`championStatus.${title}`] = false;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const updated = await this.rewards
          .findOneAndUpdate(
            { _id: credit.playerId, recentGames: { $ne: gameId } },
            {
              $inc: { playedGames: 1, 'assets.points': credit.points, 'assets.coins': credit.coins },
              $push: { recentGames: gameId },
              $setOnInsert: onInsert,
              ...(credit.titles.length ? { $set: set } : {}),
            },
            { upsert: true, new: true },
          )
          .lean<Reward>()
          .exec();
        if (updated) await this.trimRecentGames(updated);
        return 'paid';
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const paid = await this.rewards.exists({ _id: credit.playerId, recentGames: gameId });
        if (paid) return 'already-paid';
        if (attempt >= 3) throw error;
      }
    }
  }

  /** Keeps the newest RECENT_GAMES_KEPT game ids ($slice in $push is not available on FerretDB). */
  private async trimRecentGames(reward: Reward): Promise<void> {
    const games = reward.recentGames ?? [];
    const excess = games.length - this.config.RECENT_GAMES_KEPT;
    if (excess <= 0) return;
    await this.rewards.updateOne({ _id: reward._id }, { $pullAll: { recentGames: games.slice(0, excess) } });
  }

  /** Sets the name chosen by its owner (now counts as the latest change). */
  async setName(playerId: string, playerName: string, at: number): Promise<Reward | null> {
    return this.rewards
      .findOneAndUpdate({ _id: playerId }, { $set: { playerName, nameAt: at } }, { new: true })
      .lean<Reward>()
      .exec();
  }

  async markDeleted(playerId: string, at = new Date()): Promise<void> {
    try {
      await this.deleted.updateOne({ _id: playerId }, { $setOnInsert: { deletedAt: at } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  async isDeleted(playerId: string): Promise<boolean> {
    return (await this.deleted.exists({ _id: playerId })) !== null;
  }

  /** Forgets deleted players older than `before` (their events are long past the streams' retention). */
  async forgetDeletedBefore(before: Date): Promise<number> {
    const { deletedCount } = await this.deleted.deleteMany({ deletedAt: { $lt: before } });
    return deletedCount;
  }
}
