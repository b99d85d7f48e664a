import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  type EventEnvelope,
  EventTypes,
  parseOr,
  type PlayedGame,
  type PlayedGameDetail,
  playedGameIdSchema,
  REWARD_MESSAGES,
} from '@oasis198/contracts';
import { CONFIG } from '@oasis198/service-kit';
import type { RewardsConfig } from '../config';
import { parseGameFinished } from '../player-events/dto/events';
import { parseId } from '../rewards/dto/requests';
import { forLivePlayers } from '../rewards/live-players';
import { RewardsRepository } from '../rewards/rewards.repository';
import { GameHistoryRepository } from './game-history.repository';
import { historyResults, toPlayedGame, toPlayedGameDetail } from './history-entries';

/**
 * Each player's last games: built from the GAMES stream idempotently, so a
 * redelivered event changes nothing, never for a deleted player, and served read-only to anyone,
 * like the reward record itself.
 */
@Injectable()
export class GameHistoryService {
  constructor(
    private readonly history: GameHistoryRepository,
    private readonly rewards: RewardsRepository,
    @Inject(CONFIG) private readonly config: Pick<RewardsConfig, 'GAME_HISTORY_KEPT'>,
  ) {}

  /**
   * game.finished gives each player's result and the game's moves, in one event; a batch of them
   * (other events skipped) is recorded with one read of the deletion marks and of the players'
   * lists, and one insert of the games.
   */
  async onGameEvents(events: readonly EventEnvelope[]): Promise<void> {
    const results = events.flatMap((event) =>
      event.type === EventTypes.gameFinished ? historyResults(parseGameFinished(event.data)) : [],
    );
    await forLivePlayers(
      this.rewards,
      results,
      (entries) => this.history.recordResults(entries),
      (playerId) => this.history.deleteFor(playerId),
    );
  }

  /** The player's last games, newest first; 404 for someone without a reward record (or the AI). */
  async list(userId: unknown): Promise<PlayedGame[]> {
    const playerId = await this.existingPlayer(userId);
    const games = await this.history.list(playerId, this.config.GAME_HISTORY_KEPT);
    return games.map(toPlayedGame);
  }

  /** One game of the player's history with its moves. */
  async get(userId: unknown, gameId: unknown): Promise<PlayedGameDetail> {
    const playerId = await this.existingPlayer(userId);
    const game = await this.history.find(playerId, parseOr(playedGameIdSchema, gameId, gameNotFound));
    if (!game) throw gameNotFound();
    return toPlayedGameDetail(game);
  }

  private async existingPlayer(userId: unknown): Promise<string> {
    const playerId = parseId(userId);
    if (!(await this.rewards.findById(playerId))) throw new AppError('NOT_FOUND', REWARD_MESSAGES.notFound);
    return playerId;
  }
}

const gameNotFound = () => new AppError('NOT_FOUND', REWARD_MESSAGES.gameNotFound);
