import { GAME_HISTORY_SIZE } from '@oasis198/contracts';
import type { GameHistoryRepository, PlayerGameResult, StoredPlayerGame } from './game-history.repository';
import { playerGameId } from './game-history.schema';

type Repository = Pick<GameHistoryRepository, keyof GameHistoryRepository>;

const newestFirst = (a: StoredPlayerGame, b: StoredPlayerGame): number =>
  b.finishedAt.getTime() - a.finishedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

/** GameHistoryRepository in memory with the real one's rules (one entry per player and game, trimmed), for unit tests. */
export class InMemoryGameHistoryRepository implements Repository {
  readonly games = new Map<string, StoredPlayerGame>();
  /** How many writes reached the store (a no-op repeat writes nothing). */
  writes = 0;

  constructor(private readonly keep = GAME_HISTORY_SIZE) {}

  async onModuleInit(): Promise<void> {
    // nothing to prepare
  }

  async recordResults(entries: readonly PlayerGameResult[]): Promise<string[]> {
    const recorded: string[] = [];
    for (const entry of entries) if (this.recordOne(entry)) recorded.push(entry.playerId);
    return recorded;
  }

  private recordOne(entry: PlayerGameResult): boolean {
    const _id = playerGameId(entry.playerId, entry.gameId);
    if (this.games.has(_id) || this.tooOld(entry.playerId, entry.finishedAt)) return false;
    const { moveList, ...fields } = structuredClone(entry);
    const moves = moveList ? { moveList: JSON.stringify(moveList), verifiable: true } : { verifiable: false };
    this.games.set(_id, { _id, ...fields, ...moves });
    this.writes += 1;
    this.trim(entry.playerId);
    return true;
  }

  async start(): Promise<void> {
    // a player's games are found by player here: nothing to start
  }

  async list(playerId: string, limit: number): Promise<StoredPlayerGame[]> {
    return this.of(playerId)
      .filter((game) => game.result !== undefined)
      .slice(0, limit)
      .map(({ moveList: _omitted, ...game }) => structuredClone(game));
  }

  async find(playerId: string, gameId: string): Promise<StoredPlayerGame | null> {
    const game = this.games.get(playerGameId(playerId, gameId));
    return game?.result ? structuredClone(game) : null;
  }

  async deleteFor(playerId: string): Promise<number> {
    const mine = this.of(playerId);
    for (const game of mine) this.games.delete(game._id);
    return mine.length;
  }

  private of(playerId: string): StoredPlayerGame[] {
    return [...this.games.values()].filter((game) => game.playerId === playerId).sort(newestFirst);
  }

  private tooOld(playerId: string, finishedAt: Date): boolean {
    return this.of(playerId).filter((game) => game.finishedAt > finishedAt).length >= this.keep;
  }

  private trim(playerId: string): void {
    for (const game of this.of(playerId).slice(this.keep)) this.games.delete(game._id);
  }
}
