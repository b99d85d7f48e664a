import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { PlayedGame } from '@oasis198/contracts';
import type { MoveRecord } from '@oasis198/game-rules';
import { CONFIG, isDuplicateKeyError, onlyDuplicateKeys } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { RewardsConfig } from '../config';
import { PlayerGame, playerGameId, PlayerHistory } from './game-history.schema';

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

/** A player's kept games, newest first, and the version their document is at (0: none yet). */
interface Kept {
  games: StoredPlayerGame[];
  version: number;
}

/** What recording a result does to a kept list: nothing, or add it (and let the oldest go). */
type Plan = { kind: 'there' } | { kind: 'too-old' } | Added;
interface Added {
  kind: 'add';
  summary: StoredPlayerGame;
  games: StoredPlayerGame[];
  evicted: StoredPlayerGame[];
}

/** Newest first: by the end, then by id (the same order the list always had). */
const newestFirst = (a: StoredPlayerGame, b: StoredPlayerGame): number =>
  b.finishedAt.getTime() - a.finishedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

/**
 * Persistence of the game history: one document per (player, game) with its moves, written once
 * from the game's game.finished (an insert: a copy of the event finds it there), and per player
 * the list of their GAME_HISTORY_KEPT latest games (PlayerHistory), changed by a version-guarded
 * update. Every read and write goes by `_id`. A redelivered event writes nothing, and neither does
 * an event of a game older than every game kept.
 */
@Injectable()
export class GameHistoryRepository implements OnModuleInit {
  constructor(
    @InjectModel(PlayerGame.name) private readonly games: Model<PlayerGame>,
    @InjectModel(PlayerHistory.name) private readonly histories: Model<PlayerHistory>,
    @Inject(CONFIG) private readonly config: Pick<RewardsConfig, 'GAME_HISTORY_KEPT'>,
  ) {}

  async onModuleInit(): Promise<void> {
    await Promise.all([this.games.init(), this.histories.init()]);
  }

  /**
   * Records each player's result once (a result never changes, so a redelivery writes nothing),
   * with one read of their lists and one insert of their games for all of them. Answers whose
   * results it recorded: not those there already, nor a game older than every game a player's
   * history keeps. The players' lists are saved side by side, one player's results in turn: the
   * second one's guarded update fails over the list the first one saved, and it decides again.
   */
  async recordResults(entries: readonly PlayerGameResult[]): Promise<string[]> {
    const kept = await this.keptAmong(entries.map((entry) => entry.playerId));
    const adding = entries.flatMap((entry) => {
      const current = kept.get(entry.playerId) ?? { games: [], version: 0 };
      const plan = this.plan(entry, current);
      return plan.kind === 'add' ? [{ entry, current, plan }] : [];
    });
    await this.insertAll(
      adding.map(({ entry: { moveList }, plan }) => ({
        ...plan.summary,
        ...(moveList ? { moveList: JSON.stringify(moveList) } : {}),
      })),
    );
    // Each player's lists are saved in turn (the second over the first), different players' at once.
    const byPlayer = Map.groupBy(adding, ({ entry }) => entry.playerId);
    const recorded = await Promise.all(
      [...byPlayer.values()].map(async (theirs) => {
        const saved: string[] = [];
        for (const { entry, current, plan } of theirs)
          if (await this.settle(entry, current, plan)) saved.push(entry.playerId);
        return saved;
      }),
    );
    return recorded.flat();
  }

  /** Where a result goes in the kept list: nowhere if it is there or older than every game kept. */
  private plan(entry: PlayerGameResult, kept: Kept): Plan {
    const { playerId, gameId, moveList, ...fields } = entry;
    const _id = playerGameId(playerId, gameId);
    const summary: StoredPlayerGame = { _id, playerId, gameId, ...fields, verifiable: moveList !== null };
    if (kept.games.some((game) => game._id === _id)) return { kind: 'there' };
    const games = [...kept.games, summary].sort(newestFirst);
    const evicted = games.splice(this.config.GAME_HISTORY_KEPT);
    return evicted.includes(summary) ? { kind: 'too-old' } : { kind: 'add', summary, games, evicted };
  }

  /**
   * Saves the list with the inserted game over the version it was read at. When another write
   * came first, it reads the list again and decides again; the inserted copy goes if the game is
   * then older than every game kept.
   */
  private async settle(entry: PlayerGameResult, kept: Kept, plan: Added): Promise<boolean> {
    for (let current = kept, next: Plan = plan; ;) {
      if (next.kind === 'there') return false;
      if (next.kind === 'too-old') {
        await this.games.deleteOne({ _id: plan.summary._id } as never).exec();
        return false;
      }
      if (await this.save(entry.playerId, next.games, current.version)) {
        for (const game of next.evicted) await this.games.deleteOne({ _id: game._id } as never).exec();
        return true;
      }
      current = await this.kept(entry.playerId);
      next = this.plan(entry, current);
    }
  }

  /** Starts a new player's list empty (they have no games from before it); a list there stays. */
  async start(playerId: string): Promise<void> {
    await this.save(playerId, [], 0);
  }

  /** A player's latest games with a result, newest first, without their moves. */
  async list(playerId: string, limit: number): Promise<StoredPlayerGame[]> {
    return (await this.kept(playerId)).games.slice(0, limit);
  }

  /** One game of a player's history with its moves (null if it is not there or has no result yet). */
  async find(playerId: string, gameId: string): Promise<StoredPlayerGame | null> {
    const game = await this.games.findById(playerGameId(playerId, gameId)).lean<StoredPlayerGame>().exec();
    return game?.result ? game : null;
  }

  /** Deletes a player's whole history (their account was deleted). */
  async deleteFor(playerId: string): Promise<number> {
    await this.histories.deleteOne({ _id: playerId }).exec();
    const { deletedCount } = await this.games.deleteMany({ playerId });
    return deletedCount;
  }

  /**
   * The player's kept games. A player without a PlayerHistory yet may have games from before it
   * (an upgrade): those are read once by `playerId`, the one scan, and the next write keeps them.
   */
  private async kept(playerId: string): Promise<Kept> {
    return this.keptOf(playerId, await this.histories.findById(playerId).lean<PlayerHistory>().exec());
  }

  /** The kept games of several players, their lists read in one find by their ids. */
  private async keptAmong(playerIds: readonly string[]): Promise<Map<string, Kept>> {
    const histories = await this.histories
      .find({ _id: { $in: [...new Set(playerIds)] } })
      .lean<PlayerHistory[]>()
      .exec();
    const byId = new Map(histories.map((history) => [history._id, history]));
    const kept = new Map<string, Kept>();
    for (const playerId of playerIds)
      kept.set(playerId, await this.keptOf(playerId, byId.get(playerId) ?? null));
    return kept;
  }

  private async keptOf(playerId: string, history: PlayerHistory | null): Promise<Kept> {
    if (history) {
      const games = (JSON.parse(history.games) as StoredPlayerGame[]).map((game) => ({
        ...game,
        finishedAt: new Date(game.finishedAt),
      }));
      return { games, version: history.version };
    }
    const games = await this.games
      .find({ playerId, result: { $exists: true } }, { moveList: 0 })
      .sort({ finishedAt: -1, _id: -1 })
      .limit(this.config.GAME_HISTORY_KEPT)
      .lean<StoredPlayerGame[]>()
      .exec();
    return { games, version: 0 };
  }

  /** Writes the player's kept games over `version` (0: the first); false when another write came first. */
  private async save(playerId: string, games: StoredPlayerGame[], version: number): Promise<boolean> {
    const text = JSON.stringify(games);
    if (version === 0) {
      try {
        await this.histories.collection.insertOne({ _id: playerId, games: text, version: 1 } as never);
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    }
    const { matchedCount } = await this.histories
      .updateOne({ _id: playerId, version }, { $set: { games: text, version: version + 1 } })
      .exec();
    return matchedCount === 1;
  }

  /** Inserts the games; a copy there already (a redelivery, or another replica first) is the same game. */
  private async insertAll(games: readonly PlayerGame[]): Promise<void> {
    if (games.length === 0) return;
    try {
      await this.games.collection.insertMany(games as never[], { ordered: false });
    } catch (error) {
      if (!onlyDuplicateKeys(error)) throw error;
    }
  }
}
