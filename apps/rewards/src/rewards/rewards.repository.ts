import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { CHAMPION_TITLES, type ChampionTitle, PREMIUM_CATEGORIES } from '@oasis198/game-rules';
import { CONFIG, isDuplicateKeyError, onlyDuplicateKeys } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RewardsConfig } from '../config';
import { aheadOf, type Standing } from './ranking';
import { allFalse, DeletedPlayer, freshReward, PaidGame, paidGameId, Reward } from './reward.schema';

/** Points, coins and titles one player earns from one game. */
export interface Credit {
  playerId: string;
  gameId: string;
  /** The name the record gets if this game creates it. */
  playerName: string;
  points: number;
  coins: number;
  /** 1 for a win that counts on the leaderboard, else 0. */
  wins: number;
  titles: readonly ChampionTitle[];
  /** Played games it counts: 1 for a game (the default), 0 for an arena prize. */
  playedGames?: number;
}

export type CreditOutcome = 'paid' | 'already-paid';

/**
 * How many game ids leave a player's recent games together, once that many are over the limit
 * `kept`: a tenth of it (20 of the default 200).
 */
export const trimStep = (kept: number): number => Math.max(1, Math.floor(kept / 10));
/** At most this many leave in one trim: one find by an `_id` list the database's index serves. */
const TRIM_MOST = 100;

/**
 * Persistence of reward records. Every write is one atomic single-document update; a game is paid
 * to a player by an update guarded on the game id not being in the player's recent games, and
 * recorded in the ledger of paid games right after (see creditGames()).
 */
@Injectable()
export class RewardsRepository implements OnModuleInit {
  constructor(
    @InjectModel(Reward.name) private readonly rewards: Model<Reward>,
    @InjectModel(DeletedPlayer.name) private readonly deleted: Model<DeletedPlayer>,
    @InjectModel(PaidGame.name) private readonly paid: Model<PaidGame>,
    @Inject(CONFIG)
    private readonly config: Pick<RewardsConfig, 'RECENT_GAMES_KEPT' | 'RECENT_GAMES_HELD_MS'>,
  ) {}

  async onModuleInit(): Promise<void> {
    await Promise.all([this.rewards.init(), this.deleted.init(), this.paid.init()]);
    // Records from before wins were counted rank as 0 wins; the leaderboard's filters and sort
    // need the field itself (a missing field neither equals 0 nor sorts with it).
    await this.rewards.updateMany({ wins: { $exists: false } }, { $set: { wins: 0 } });
  }

  findById(playerId: string): Promise<Reward | null> {
    return this.rewards.findById(playerId).lean<Reward>().exec();
  }

  /** How many records are ahead of this standing on the leaderboard (its rank is one more). */
  countAhead(standing: Standing): Promise<number> {
    return this.rewards.countDocuments(aheadOf(standing)).exec();
  }

  /**
   * A page of the leaderboard: most points first, then most wins, then by name, and by id for a
   * stable order among equals.
   */
  async list(page: number, pageSize: number): Promise<{ items: Reward[]; total: number }> {
    const [items, total] = await Promise.all([
      this.rewards
        .find({})
        .sort({ 'assets.points': -1, wins: -1, playerName: 1, _id: 1 })
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
   * Pays each credit's game to its player exactly once, whatever redeliveries happen and however
   * late, creating the record if the game comes first. Without multi-document transactions
   * (FerretDB), it takes three single-document steps per player:
   *
   *   1. the ledger (one record per player and game) has the game: already paid, stop;
   *   2. the guarded credit: `$inc` the assets and `$push` the game id into recentGames, only if
   *      the id is not there yet (an upsert for a missing record);
   *   3. the ledger record, written whether step 2 paid or found the id already there.
   *
   * Why no crash pays twice or loses a payment: a game id leaves recentGames only once its ledger
   * record exists (trimRecentGames writes any missing one first), so a paid game is always in
   * recentGames, in the ledger, or both, and steps 1 and 2 together refuse it. A crash before step
   * 2 leaves nothing paid, and the redelivery pays; a crash between 2 and 3 leaves the id in
   * recentGames, so the redelivery's step 2 refuses and its step 3 writes the record; after step
   * 3 the redelivery stops at step 1. A ledger record is only written for a game already paid,
   * so no payment is lost to it. Two replicas handling the same game at once both pass step 1,
   * but step 2 is one atomic update of one document: only one `$inc` applies. The second one's
   * step 2 must still find the id in recentGames, though it may come after the first one's step
   * 3 (its write queued behind a batch of the other's in the database): an id leaves only once
   * its ledger record is RECENT_GAMES_HELD_MS old (10 min), not when RECENT_GAMES_KEPT newer
   * games came, which two replicas paying a batch each can make happen within milliseconds.
   *
   * Steps 1 and 3 are one read and one write of the ledger for all the credits, of one game or
   * of a batch of games (at most 50 games: the ledger's `_id` list stays one the index serves).
   * The guarded credits, each one atomic update of one record, go side by side, a player's two
   * games in one batch too. Answers each credit's outcome, in the credits' order.
   */
  async creditGames(credits: readonly Credit[]): Promise<CreditOutcome[]> {
    const ledger = await this.paid
      .find({ _id: { $in: credits.map(({ playerId, gameId }) => paidGameId(playerId, gameId)) } }, { _id: 1 })
      .lean<Pick<PaidGame, '_id'>[]>()
      .exec();
    const inLedger = new Set(ledger.map((record) => record._id));
    const owed = credits.filter(({ playerId, gameId }) => !inLedger.has(paidGameId(playerId, gameId)));
    const credited = new Map(
      await Promise.all(owed.map(async (credit) => [credit, await this.guardedCredit(credit)] as const)),
    );
    await this.recordPaid(owed);
    for (const { reward } of credited.values()) if (reward) await this.trimRecentGames(reward);
    return credits.map((credit) => credited.get(credit)?.outcome ?? 'already-paid');
  }

  /**
   * The update guarded on recentGames. The filter refuses a game already paid; for a missing
   * record the upsert inserts it, and a duplicate-key answer means the record appeared meanwhile
   * (retry) or the game was paid.
   */
  private async guardedCredit(credit: Credit): Promise<{ outcome: CreditOutcome; reward?: Reward }> {
    const { gameId } = credit;
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
              $inc: {
                playedGames: credit.playedGames ?? 1,
                wins: credit.wins,
                'assets.points': credit.points,
                'assets.coins': credit.coins,
              },
              $push: { recentGames: gameId },
              $setOnInsert: onInsert,
              ...(credit.titles.length ? { $set: set } : {}),
            },
            { upsert: true, new: true },
          )
          .lean<Reward>()
          .exec();
        return { outcome: 'paid', reward: updated ?? undefined };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const paid = await this.rewards.exists({ _id: credit.playerId, recentGames: gameId });
        if (paid) return { outcome: 'already-paid' };
        if (attempt >= 3) throw error;
      }
    }
  }

  /**
   * Writes the ledger records of games paid, in one insert (each at most once: a record there
   * already is left as it is, and the others are written).
   */
  private async recordPaid(paid: readonly Pick<Credit, 'playerId' | 'gameId'>[]): Promise<void> {
    if (paid.length === 0) return;
    const paidAt = new Date();
    const records = paid.map(({ playerId, gameId }) => ({
      _id: paidGameId(playerId, gameId),
      playerId,
      gameId,
      paidAt,
    }));
    try {
      await this.paid.insertMany(records, { ordered: false });
    } catch (error) {
      // Written before (a redelivery after a crash, another replica at the same moment).
      if (!onlyDuplicateKeys(error)) throw error;
    }
  }

  /**
   * Keeps at least the newest RECENT_GAMES_KEPT game ids ($slice in $push is not available on
   * FerretDB). The oldest go a tenth of that at a time (trimStep), in one read of their ledger records and one
   * update, rather than one of each per game: a player past RECENT_GAMES_KEPT games would
   * otherwise cost two more commands on every game. An id leaves only once the ledger has held it
   * for RECENT_GAMES_HELD_MS (see creditGames); one whose record a crash left out is recorded
   * now, and leaves at a later trim.
   */
  private async trimRecentGames(reward: Reward): Promise<void> {
    const games = reward.recentGames ?? [];
    const excess = games.length - this.config.RECENT_GAMES_KEPT;
    if (excess < trimStep(this.config.RECENT_GAMES_KEPT)) return;
    const oldest = games.slice(0, Math.min(excess, TRIM_MOST));
    const recorded = await this.paid
      .find(
        { _id: { $in: oldest.map((gameId) => paidGameId(reward._id, gameId)) } },
        { gameId: 1, paidAt: 1 },
      )
      .lean<Pick<PaidGame, 'gameId' | 'paidAt'>[]>()
      .exec();
    const paidAt = new Map(recorded.map((record) => [record.gameId, new Date(record.paidAt).getTime()]));
    const missing = oldest.filter((gameId) => !paidAt.has(gameId));
    await this.recordPaid(missing.map((gameId) => ({ playerId: reward._id, gameId })));
    const now = Date.now();
    for (const gameId of missing) paidAt.set(gameId, now);
    const leaving = oldest.filter(
      (gameId) => (paidAt.get(gameId) ?? now) <= now - this.config.RECENT_GAMES_HELD_MS,
    );
    if (leaving.length === 0) return;
    await this.rewards.updateOne({ _id: reward._id }, { $pullAll: { recentGames: leaving } });
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

  /** Which of these players deleted their account: one read for the players of a batch of games. */
  async deletedAmong(playerIds: readonly string[]): Promise<Set<string>> {
    if (playerIds.length === 0) return new Set();
    const found = await this.deleted
      .find({ _id: { $in: [...new Set(playerIds)] } }, { _id: 1 })
      .lean<Pick<DeletedPlayer, '_id'>[]>()
      .exec();
    return new Set(found.map((player) => player._id));
  }

  /**
   * Forgets deleted players older than `before` (their events are long past the streams'
   * retention), with their ledger of paid games.
   */
  async forgetDeletedBefore(before: Date): Promise<number> {
    const gone = await this.deleted
      .find({ deletedAt: { $lt: before } }, { _id: 1 })
      .lean<Pick<DeletedPlayer, '_id'>[]>()
      .exec();
    if (gone.length === 0) return 0;
    const ids = gone.map((player) => player._id);
    await this.paid.deleteMany({ playerId: { $in: ids } });
    const { deletedCount } = await this.deleted.deleteMany({ _id: { $in: ids } });
    return deletedCount;
  }
}
