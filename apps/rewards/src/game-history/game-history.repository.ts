import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { PlayedGame } from '@oasis198/contracts';
import type { MoveRecord } from '@oasis198/game-rules';
import { CONFIG, isDuplicateKeyError } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RewardsConfig } from '../config';
import { PlayerGame, playerGameId } from './game-history.schema';

/**
 * One player's side of a finished game, from game.finished: what the history lists (PlayedGame),
 * whose player, its end as a date, and its moves instead of whether there are any.
 */
export interface PlayerGameResult extends Omit<PlayedGame, 'finishedAt' | 'verifiable'> {
  playerId: string;
  finishedAt: Date;
  /** Every move, to replay the game; null for an event written before game.finished carried them. */
  moveList: readonly MoveRecord[] | null;
}

/** A history entry as read back: the result is there once game.finished was applied. */
export type StoredPlayerGame = PlayerGame;

/**
 * Persistence of the game history: one document per (player, game), written once from the game's
 * game.finished (an insert: a copy of the event finds it there), and each player's history kept to their
 * GAME_HISTORY_KEPT latest games. A redelivered event writes nothing, and neither does an event of
 * a game older than every game kept (it would be trimmed at once).
 */
@Injectable()
export class GameHistoryRepository implements OnModuleInit {
  constructor(
    @InjectModel(PlayerGame.name) private readonly games: Model<PlayerGame>,
    @Inject(CONFIG) private readonly config: Pick<RewardsConfig, 'GAME_HISTORY_KEPT'>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.games.init();
  }

  /**
   * Records a player's result once (a result never changes, so a redelivery writes nothing); false
   * when it is there already or the game is older than every game the history keeps. The insert's
   * duplicate key is the "there already" check: no read of its own before it.
   */
  async recordResult(entry: PlayerGameResult): Promise<boolean> {
    const { playerId, gameId, moveList, ...fields } = entry;
    if (await this.tooOld(playerId, entry.finishedAt)) return false;
    const _id = playerGameId(playerId, gameId);
    const moves = moveList ? { moveList: JSON.stringify(moveList), verifiable: true } : { verifiable: false };
    const written = await this.insert({ _id, playerId, gameId, ...fields, ...moves });
    if (written) await this.trim(playerId);
    return written;
  }

  /** A player's latest games with a result, newest first, without their moves. */
  list(playerId: string, limit: number): Promise<StoredPlayerGame[]> {
    return this.games
      .find({ playerId, result: { $exists: true } }, { moveList: 0 })
      .sort({ finishedAt: -1, _id: -1 })
      .limit(limit)
      .lean<StoredPlayerGame[]>()
      .exec();
  }

  /** One game of a player's history with its moves (null if it is not there or has no result yet). */
  async find(playerId: string, gameId: string): Promise<StoredPlayerGame | null> {
    const game = await this.games.findById(playerGameId(playerId, gameId)).lean<StoredPlayerGame>().exec();
    return game?.result ? game : null;
  }

  /** Deletes a player's whole history (their account was deleted). */
  async deleteFor(playerId: string): Promise<number> {
    const { deletedCount } = await this.games.deleteMany({ playerId });
    return deletedCount;
  }

  /** Inserts the entry; false when it is there already (a redelivery, or another replica first). */
  private async insert(entry: PlayerGame): Promise<boolean> {
    try {
      await this.games.collection.insertOne(entry as never);
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return false;
    }
  }

  /** Whether the player already has GAME_HISTORY_KEPT games newer than this one. */
  private async tooOld(playerId: string, finishedAt: Date): Promise<boolean> {
    const newer = await this.games.countDocuments({ playerId, finishedAt: { $gt: finishedAt } }).exec();
    return newer >= this.config.GAME_HISTORY_KEPT;
  }

  /** Keeps the player's GAME_HISTORY_KEPT latest games (usually removes one, or none). */
  private async trim(playerId: string): Promise<void> {
    const beyond = await this.games
      .find({ playerId }, { _id: 1 })
      .sort({ finishedAt: -1, _id: -1 })
      .skip(this.config.GAME_HISTORY_KEPT)
      .lean<Pick<PlayerGame, '_id'>[]>()
      .exec();
    if (beyond.length) await this.games.deleteMany({ _id: { $in: beyond.map((game) => game._id) } });
  }
}
