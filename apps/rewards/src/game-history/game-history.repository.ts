import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Person, PlayedGameResult } from '@oasis198/contracts';
import type { EndReason, MoveRecord, Seat } from '@oasis198/game-rules';
import { CONFIG, isDuplicateKeyError } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RewardsConfig } from '../config';
import { PlayerGame, playerGameId } from './game-history.schema';

/** One player's side of a finished game, from game.finished. */
export interface PlayerGameResult {
  playerId: string;
  gameId: string;
  roomId: string;
  finishedAt: Date;
  seat: Seat;
  opponent: Person;
  result: PlayedGameResult;
  endReason: EndReason;
  moves: number;
  duration: number;
  aiCommit: string | null;
  aiSeed: string | null;
}

/** A game's moves for one of its players, from the room's final state. */
export interface PlayerGameMoves {
  playerId: string;
  gameId: string;
  finishedAt: Date;
  moves: readonly MoveRecord[];
}

/** A history entry as read back: the result is there once game.finished was applied. */
export type StoredPlayerGame = PlayerGame;

/**
 * Persistence of the game history: one document per (player, game), each part (result, moves)
 * written once by a guarded single-document upsert, and each player's history kept to their
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
   * when it is there already or the game is older than every game the history keeps.
   */
  async recordResult(entry: PlayerGameResult): Promise<boolean> {
    const { playerId, gameId, ...fields } = entry;
    const _id = playerGameId(playerId, gameId);
    if (await this.games.exists({ _id, result: { $exists: true } })) return false;
    if (await this.tooOld(playerId, entry.finishedAt)) return false;
    const written = await this.upsert(
      { _id, result: { $exists: false } },
      { $set: { playerId, gameId, ...fields } },
    );
    if (written) await this.trim(playerId);
    return written;
  }

  /**
   * Records a game's moves for a player once (a later copy of the room's final state is not
   * written again); false when they are there already or the game is too old to keep.
   */
  async recordMoves(entry: PlayerGameMoves): Promise<boolean> {
    const _id = playerGameId(entry.playerId, entry.gameId);
    if (await this.games.exists({ _id, verifiable: true })) return false;
    if (await this.tooOld(entry.playerId, entry.finishedAt)) return false;
    const written = await this.upsert(
      { _id, verifiable: { $ne: true } },
      {
        $set: { moveList: JSON.stringify(entry.moves), verifiable: true },
        // game.finished sets these too (the same values); whichever comes first creates the entry.
        $setOnInsert: { playerId: entry.playerId, gameId: entry.gameId, finishedAt: entry.finishedAt },
      },
    );
    if (written) await this.trim(entry.playerId);
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

  /**
   * One guarded upsert: the filter refuses an entry that has this part already, and then the
   * insert fails on the id. That also happens when another replica inserted the entry (with the
   * other part) a moment before, so it is tried once more: the filter then matches that entry,
   * or still refuses it. True when it wrote.
   */
  private async upsert(filter: Record<string, unknown>, update: Record<string, unknown>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.games.updateOne(filter, update, { upsert: true });
        return true;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        if (attempt >= 2) return false;
      }
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
