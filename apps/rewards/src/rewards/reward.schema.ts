import { Prop, raw, Schema, SchemaFactory } from '@nestjs/mongoose';
import {
  CHAMPION_TITLES,
  type ChampionTitle,
  PREMIUM_CATEGORIES,
  type PremiumCategory,
} from '@oasis198/game-rules';

/**
 * One player's reward / profile record (SPEC §3, DECISIONS.md names). levelStatus is not stored:
 * it follows from the points whenever the record is read.
 */
@Schema({ collection: 'rewards', versionKey: false, timestamps: true, minimize: false })
export class Reward {
  /** The player's user id. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true })
  playerName!: string;

  @Prop({ type: Number, required: true })
  playedGames!: number;

  /** Games won against a person, paid with the game's points (the leaderboard's second key). */
  @Prop({ type: Number, required: true })
  wins!: number;

  @Prop(raw({ points: { type: Number, required: true }, coins: { type: Number, required: true } }))
  assets!: { points: number; coins: number };

  @Prop({ type: Object, required: true })
  categories!: Record<PremiumCategory, boolean>;

  @Prop({ type: Object, required: true })
  championStatus!: Record<ChampionTitle, boolean>;

  /** The last games paid to this player (bounded in code): a game already here is not paid again. */
  @Prop({ type: [String], default: undefined })
  recentGames!: string[];

  /** When playerName was set (ms since the epoch): an older rename arriving late changes nothing. */
  @Prop({ type: Number, required: true })
  nameAt!: number;

  createdAt!: Date;
  updatedAt!: Date;
}

export const RewardSchema = SchemaFactory.createForClass(Reward);
// The leaderboard's order (points, then wins, then name; the id keeps pages stable), which also
// serves the count of players ahead of one (RewardsRepository.countAhead).
RewardSchema.index({ 'assets.points': -1, wins: -1, playerName: 1, _id: 1 });

/** The ids of deleted players, so a late or redelivered event cannot bring their record back. */
@Schema({ collection: 'deleted_players', versionKey: false })
export class DeletedPlayer {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Date, required: true, index: true })
  deletedAt!: Date;
}

export const DeletedPlayerSchema = SchemaFactory.createForClass(DeletedPlayer);

/**
 * The ledger of paid games: one record per (player, game), written right after the guarded credit
 * that paid it. recentGames remembers only a player's latest games; the ledger remembers every
 * game ever paid, so a redelivery of any age pays nothing (RewardsRepository.credit).
 */
@Schema({ collection: 'paid_games', versionKey: false })
export class PaidGame {
  /** paidGameId(playerId, gameId). */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true, index: true })
  playerId!: string;

  @Prop({ type: String, required: true })
  gameId!: string;

  @Prop({ type: Date, required: true })
  paidAt!: Date;
}

export const PaidGameSchema = SchemaFactory.createForClass(PaidGame);

/** The ledger id of one game paid to one player (unambiguous whatever characters the ids hold). */
export const paidGameId = (playerId: string, gameId: string): string => JSON.stringify([playerId, gameId]);

/** A new player's record: nothing earned yet, every flag false. */
export function freshReward(
  playerId: string,
  playerName: string,
  nameAt: number,
): Omit<Reward, 'createdAt' | 'updatedAt'> {
  return {
    _id: playerId,
    playerName,
    playedGames: 0,
    wins: 0,
    assets: { points: 0, coins: 0 },
    categories: allFalse(PREMIUM_CATEGORIES),
    championStatus: allFalse(CHAMPION_TITLES),
    recentGames: [],
    nameAt,
  };
}

export function allFalse<K extends string>(keys: readonly K[]): Record<K, boolean> {
  return Object.fromEntries(keys.map((key) => [key, false])) as Record<K, boolean>;
}
