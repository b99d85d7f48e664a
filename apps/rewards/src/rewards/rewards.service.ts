import { Injectable } from '@nestjs/common';
import {
  ARENA_PRIZES,
  arenaPrizeId,
  arenaPrizeRequestSchema,
  type ArenaPrizeResponse,
  AppError,
  COMMON_MESSAGES,
  createRewardBodySchema,
  type DeleteRewardResponse,
  editRewardBodySchema,
  type EditRewardResponse,
  parseWith,
  type RankedReward,
  REWARD_MESSAGES,
  type RewardPage,
  type RewardView,
  type TokenClaims,
} from '@oasis198/contracts';
import { readablePage } from '@oasis198/service-kit';
import { pageRanks } from './ranking';
import { toRewardView } from './reward-view';
import { RewardsRepository } from './rewards.repository';
import { parseId } from './dto/requests';

const notFound = () => new AppError('NOT_FOUND', REWARD_MESSAGES.notFound);

/** The rewards calls: public reads, and writes by the record's owner that touch nothing earned. */
@Injectable()
export class RewardsService {
  constructor(private readonly rewards: RewardsRepository) {}

  /**
   * tournaments: pays one place of an ended arena, keyed as a game of its own among the player's
   * paid games, so a retried or repeated request pays it once. A deleted player gets nothing.
   */
  async arenaPrize(request: unknown): Promise<ArenaPrizeResponse> {
    const { arenaId, place, playerId, playerName } = parseWith(arenaPrizeRequestSchema, request);
    const prize = ARENA_PRIZES.find((p) => p.place === place);
    if (!prize) throw new AppError('VALIDATION', 'There is no such place.');
    if (await this.rewards.isDeleted(playerId)) return { outcome: 'deleted' };
    const [outcome = 'already-paid'] = await this.rewards.creditGames([
      {
        playerId,
        gameId: arenaPrizeId(arenaId, place),
        playerName,
        points: 0,
        coins: prize.coins,
        wins: 0,
        titles: prize.title ? [prize.title] : [],
        playedGames: 0,
      },
    ]);
    return { outcome };
  }

  /** A record with its rank: one indexed count of the players ahead of it. */
  async get(userId: unknown): Promise<RankedReward> {
    const reward = await this.rewards.findById(parseId(userId));
    if (!reward) throw notFound();
    return { ...toRewardView(reward), rank: 1 + (await this.rewards.countAhead(reward)) };
  }

  /**
   * A page of the leaderboard with each row's rank, consistent with get(): one count for the first
   * row (it may tie with the row before the page), the others from their neighbours. The first
   * page needs no count (nobody is ahead of its first row), and it is the page every open
   * leaderboard refetches after a notice. A page past any offset the database takes is empty
   * (readablePage).
   */
  async list(page: number, pageSize: number): Promise<RewardPage> {
    const read = readablePage(page, pageSize);
    const { items, total } = await this.rewards.list(read.page, pageSize);
    const [first] = items;
    if (read.beyond || !first) return { rewards: [], page, pageSize, total };
    const firstRank = read.page === 1 ? 1 : 1 + (await this.rewards.countAhead(first));
    const ranks = pageRanks(items, (read.page - 1) * pageSize + 1, firstRank);
    const rewards = items.map((item, i) => ({ ...toRewardView(item), rank: ranks[i] as number }));
    return { rewards, page, pageSize, total };
  }

  /**
   * The caller's own record; if it exists already it is returned unchanged. The body is judged by
   * the schema the gateway documents: points, coins, levels, titles or anything else are refused.
   */
  async create(caller: TokenClaims, body: unknown): Promise<RewardView> {
    const { playerId, playerName } = parseWith(createRewardBodySchema, body);
    if (playerId !== caller.userId) throw forbidden();
    ownName(caller, playerName);
    if (await this.rewards.isDeleted(caller.userId)) throw forbidden();
    await this.rewards.createIfMissing(caller.userId, playerName, Date.now());
    const reward = await this.rewards.findById(caller.userId);
    if (!reward) throw notFound();
    return toRewardView(reward);
  }

  /**
   * Copies the caller's username to their own record (SPEC: after a username change), the only
   * field a client may write, and only with the name their account has.
   */
  async edit(caller: TokenClaims, id: unknown, body: unknown): Promise<EditRewardResponse> {
    const playerId = this.ownId(caller, id);
    const { playerName } = parseWith(editRewardBodySchema, body);
    ownName(caller, playerName);
    const reward = await this.rewards.setName(playerId, playerName, Date.now());
    if (!reward) throw notFound();
    return { reward: toRewardView(reward) };
  }

  async delete(caller: TokenClaims, id: unknown): Promise<DeleteRewardResponse> {
    const playerId = this.ownId(caller, id);
    if (!(await this.rewards.delete(playerId))) throw notFound();
    return { message: REWARD_MESSAGES.deleted };
  }

  private ownId(caller: TokenClaims, id: unknown): string {
    const playerId = parseId(id);
    if (playerId !== caller.userId) throw forbidden();
    return playerId;
  }
}

const forbidden = () => new AppError('FORBIDDEN', COMMON_MESSAGES.forbiddenOwner);

/**
 * A record shows its account's name on the leaderboard, so a name other than the caller's (the
 * name the gateway knows for the token, renames included) would impersonate someone: 403.
 */
function ownName(caller: TokenClaims, playerName: string): void {
  if (playerName !== caller.name) throw new AppError('FORBIDDEN', REWARD_MESSAGES.notYourName);
}
