import { Injectable } from '@nestjs/common';
import {
  AppError,
  COMMON_MESSAGES,
  type DeleteRewardResponse,
  type EditRewardResponse,
  REWARD_MESSAGES,
  type RewardPage,
  type RewardView,
  type TokenClaims,
} from '@oasis198/contracts';
import { readablePage } from '@oasis198/service-kit';
import { toRewardView } from './reward-view';
import { RewardsRepository } from './rewards.repository';
import { onlyFields, parseId, parsePlayerName } from './dto/requests';

const notFound = () => new AppError('NOT_FOUND', REWARD_MESSAGES.notFound);
const CREATE_MESSAGE = 'Send only playerId and playerName.';

/** The rewards calls: public reads, and writes by the record's owner that touch nothing earned. */
@Injectable()
export class RewardsService {
  constructor(private readonly rewards: RewardsRepository) {}

  async get(userId: unknown): Promise<RewardView> {
    const reward = await this.rewards.findById(parseId(userId));
    if (!reward) throw notFound();
    return toRewardView(reward);
  }

  /** A page of the leaderboard; a page past any offset the database takes is empty (readablePage). */
  async list(page: number, pageSize: number): Promise<RewardPage> {
    const read = readablePage(page, pageSize);
    const { items, total } = await this.rewards.list(read.page, pageSize);
    return { rewards: read.beyond ? [] : items.map(toRewardView), page, pageSize, total };
  }

  /** The caller's own record; if it exists already it is returned unchanged. */
  async create(caller: TokenClaims, body: unknown): Promise<RewardView> {
    const fields = onlyFields(body, ['playerId', 'playerName'], CREATE_MESSAGE);
    if (fields['playerId'] !== caller.userId) throw forbidden();
    const playerName = parsePlayerName(fields['playerName']);
    if (await this.rewards.isDeleted(caller.userId)) throw forbidden();
    await this.rewards.createIfMissing(caller.userId, playerName, Date.now());
    const reward = await this.rewards.findById(caller.userId);
    if (!reward) throw notFound();
    return toRewardView(reward);
  }

  /** Renames the caller's own record (the only field a client may change). */
  async edit(caller: TokenClaims, id: unknown, body: unknown): Promise<EditRewardResponse> {
    const playerId = this.ownId(caller, id);
    const fields = onlyFields(body, ['playerName'], REWARD_MESSAGES.onlyPlayerName);
    const reward = await this.rewards.setName(playerId, parsePlayerName(fields['playerName']), Date.now());
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
