import { Inject, Injectable } from '@nestjs/common';
import { type EventEnvelope, EventTypes } from '@oasis198/contracts';
import { LOGGER, type Logger, runWithRequestId } from '@oasis198/service-kit';
import { GameHistoryRepository } from '../game-history/game-history.repository';
import { forLivePlayers } from '../rewards/live-players';
import { type Credit, RewardsRepository } from '../rewards/rewards.repository';
import { occurredAtMs, parseGameFinished, parseUserDeleted, parseUserNamed } from './dto/events';
import { LeaderboardNotifier } from './leaderboard-notifier';
import { payoutsFor } from './payouts';

/**
 * Applies user and game events to reward records, idempotently: a redelivered or duplicated event
 * changes nothing twice, and nothing that arrives after a player's deletion brings the record back.
 */
@Injectable()
export class PlayerEventsService {
  constructor(
    private readonly rewards: RewardsRepository,
    private readonly history: GameHistoryRepository,
    private readonly leaderboard: LeaderboardNotifier,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onUserEvent(event: EventEnvelope): Promise<void> {
    switch (event.type) {
      case EventTypes.userRegistered:
      case EventTypes.userRenamed: {
        const { userId, name } = parseUserNamed(event.data);
        await this.named(userId, name, occurredAtMs(event.occurredAt));
        return;
      }
      case EventTypes.userDeleted: {
        const { userId } = parseUserDeleted(event.data);
        await this.rewards.markDeleted(userId);
        await this.rewards.delete(userId);
        // The history's writers check the mark too, so no late game brings an entry back.
        const games = await this.history.deleteFor(userId);
        this.logger.info({ userId, games }, 'reward record and game history deleted with its user');
        return;
      }
      default:
        return;
    }
  }

  /**
   * Pays a batch of game.finished events (other events are skipped) with one read of the deletion
   * marks and of the ledger, and one write of the ledger, for all their players. Each game's log
   * lines carry its own request id (the event's, which the consumer sets as delivered).
   */
  async onGameEvents(events: readonly EventEnvelope[]): Promise<void> {
    const games = events.flatMap((event) =>
      event.type === EventTypes.gameFinished ? [{ game: parseGameFinished(event.data), event }] : [],
    );
    const requestIds = new Map(games.map(({ game, event }) => [game.gameId, event.requestId]));
    const paid: Credit[] = [];
    const pay = async (credits: readonly Credit[]): Promise<string[]> => {
      const outcomes = await this.rewards.creditGames(credits);
      for (const [i, credit] of credits.entries()) {
        const { gameId, playerId, points } = credit;
        const outcome = outcomes[i];
        if (outcome === 'paid') paid.push(credit);
        runWithRequestId(requestIds.get(gameId), () =>
          this.logger.info({ gameId, playerId, points, outcome }, 'game rewards applied'),
        );
      }
      return credits.map((credit) => credit.playerId);
    };
    const credits = games.flatMap(({ game }) => payoutsFor(game));
    await forLivePlayers(this.rewards, credits, pay, (playerId) => this.forget(playerId));
    // Once per game (a redelivery pays nothing and announces nothing).
    for (const [gameId, credits] of Map.groupBy(paid, (credit) => credit.gameId))
      this.leaderboard.changed({ gameId, playerIds: credits.map((credit) => credit.playerId) });
  }

  /** A registration creates the record; a rename renames it (or creates it if it came first). */
  private async named(userId: string, name: string, at: number): Promise<void> {
    if (await this.rewards.isDeleted(userId)) return;
    // Rename if there is an older name; else create; if another event created it meanwhile, rename again.
    const renamed = await this.rewards.rename(userId, name, at);
    const created = !renamed && (await this.rewards.createIfMissing(userId, name, at));
    const applied = renamed || created || (await this.rewards.rename(userId, name, at));
    // A new player has no games from before their history's list: it starts empty, so their first
    // game needs no look for older ones.
    if (created) await this.history.start(userId);
    // Another replica may have handled user.deleted between our check and our write.
    if (applied && (await this.rewards.isDeleted(userId))) await this.forget(userId);
  }

  /** A deleted player's record and history, written after the deletion was handled. */
  private async forget(userId: string): Promise<void> {
    await this.rewards.delete(userId);
    await this.history.deleteFor(userId);
  }
}
