import { Prop, raw, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { Person, PlayedGameResult } from '@oasis198/contracts';
import type { EndReason, Seat } from '@oasis198/game-rules';

/**
 * One game in one player's history, a read model of the GAMES stream,
 * written once from the game's game.finished, which carries the result and every move.
 */
@Schema({ collection: 'player_games', versionKey: false, minimize: false })
export class PlayerGame {
  /** playerGameId(playerId, gameId). */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true })
  playerId!: string;

  @Prop({ type: String, required: true })
  gameId!: string;

  /** When the game ended: the history keeps a player's GAME_HISTORY_KEPT latest by it. */
  @Prop({ type: Date, required: true })
  finishedAt!: Date;

  // From game.finished.
  @Prop({ type: String })
  roomId?: string;

  @Prop({ type: String })
  seat?: Seat;

  @Prop(raw({ id: { type: String }, name: { type: String } }))
  opponent?: Person;

  @Prop({ type: String })
  result?: PlayedGameResult;

  @Prop({ type: String })
  endReason?: EndReason;

  /** How many moves the game had. */
  @Prop({ type: Number })
  moves?: number;

  @Prop({ type: Number })
  duration?: number;

  @Prop({ type: String, default: undefined })
  aiCommit?: string | null;

  @Prop({ type: String, default: undefined })
  aiSeed?: string | null;

  /** The move list as JSON text: nothing queries inside it, and one value is cheap to store. */
  @Prop({ type: String })
  moveList?: string;

  /** Set with moveList, so a list can say a game can be replayed without reading its moves. */
  @Prop({ type: Boolean })
  verifiable?: boolean;

  /** An arena game's event, by its name ('Event 9'); null or absent for any other game. */
  @Prop({ type: String, default: undefined })
  event?: string | null;
}

export const PlayerGameSchema = SchemaFactory.createForClass(PlayerGame);
// A player's games by end, newest first: read once for a player whose games predate their
// PlayerHistory (GameHistoryRepository.kept); deleteFor goes by playerId too.
PlayerGameSchema.index({ playerId: 1, finishedAt: -1 });

/**
 * A player's kept games, newest first: what the list answers and what keeping GAME_HISTORY_KEPT
 * goes by, read and written by `_id` only. FerretDB finds by `_id` through its index but scans a
 * collection for any other filter: a player's games found by `playerId` cost a scan of every
 * player's games, four times per finished game (docs/adr/0019-game-history-and-leaderboard.md).
 */
@Schema({ collection: 'player_histories', versionKey: false, minimize: false })
export class PlayerHistory {
  /** The player's id. */
  @Prop({ type: String, required: true })
  _id!: string;

  /** The kept games as JSON text (PlayerGame without the moves): nothing queries inside it. */
  @Prop({ type: String, required: true })
  games!: string;

  /** Raised by every write: the guard of a read-modify-write. */
  @Prop({ type: Number, required: true })
  version!: number;
}

export const PlayerHistorySchema = SchemaFactory.createForClass(PlayerHistory);

/** The id of one game in one player's history (unambiguous whatever characters the ids hold). */
export const playerGameId = (playerId: string, gameId: string): string => JSON.stringify([playerId, gameId]);
