import { CHAMPION_TITLES } from '@oasis198/game-rules';
import { compareStanding, type Standing } from './ranking';
import { freshReward, paidGameId, type Reward } from './reward.schema';
import { type Credit, type CreditOutcome, type RewardsRepository, trimStep } from './rewards.repository';

type Repository = Pick<RewardsRepository, keyof RewardsRepository>;

/**
 * RewardsRepository in memory with the real one's rules (ledger of paid games, guarded credit,
 * newer names win), for unit tests.
 */
export class InMemoryRewardsRepository implements Repository {
  readonly rewards = new Map<string, Reward>();
  readonly deleted = new Map<string, Date>();
  /** The ledger: paidGameId(player, game). */
  readonly paid = new Set<string>();
  /** Runs once before the next write, to simulate another replica acting in between. */
  beforeWrite?: () => Promise<void>;

  constructor(private readonly keep = 200) {}

  async onModuleInit(): Promise<void> {
    // nothing to prepare
  }

  async findById(playerId: string): Promise<Reward | null> {
    const reward = this.rewards.get(playerId);
    return reward ? structuredClone(reward) : null;
  }

  async countAhead(standing: Standing): Promise<number> {
    return [...this.rewards.values()].filter((reward) => compareStanding(reward, standing) < 0).length;
  }

  async list(page: number, pageSize: number): Promise<{ items: Reward[]; total: number }> {
    const sorted = [...this.rewards.values()].sort(
      (a, b) => compareStanding(a, b) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0),
    );
    const items = sorted.slice((page - 1) * pageSize, page * pageSize).map((r) => structuredClone(r));
    return { items, total: sorted.length };
  }

  async createIfMissing(playerId: string, playerName: string, nameAt: number): Promise<boolean> {
    await this.hook();
    if (this.rewards.has(playerId)) return false;
    this.rewards.set(playerId, {
      ...freshReward(playerId, playerName, nameAt),
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    return true;
  }

  async rename(playerId: string, playerName: string, at: number): Promise<boolean> {
    await this.hook();
    const reward = this.rewards.get(playerId);
    if (!reward || reward.nameAt >= at) return false;
    Object.assign(reward, { playerName, nameAt: at });
    return true;
  }

  async delete(playerId: string): Promise<boolean> {
    return this.rewards.delete(playerId);
  }

  async creditGames(credits: readonly Credit[]): Promise<CreditOutcome[]> {
    const outcomes: CreditOutcome[] = [];
    for (const credit of credits) outcomes.push(await this.creditOne(credit));
    return outcomes;
  }

  private async creditOne(credit: Credit): Promise<CreditOutcome> {
    await this.hook();
    const { gameId } = credit;
    const ledgerId = paidGameId(credit.playerId, gameId);
    if (this.paid.has(ledgerId)) return 'already-paid';
    let reward = this.rewards.get(credit.playerId);
    if (reward?.recentGames.includes(gameId)) {
      this.paid.add(ledgerId);
      return 'already-paid';
    }
    if (!reward) {
      reward = {
        ...freshReward(credit.playerId, credit.playerName, 0),
        createdAt: new Date(),
        updatedAt: new Date(),
      };
      this.rewards.set(credit.playerId, reward);
    }
    reward.playedGames += 1;
    reward.wins += credit.wins;
    reward.assets.points += credit.points;
    reward.assets.coins += credit.coins;
    for (const title of CHAMPION_TITLES)
      if (credit.titles.includes(title)) reward.championStatus[title] = true;
    this.paid.add(ledgerId);
    const recent = [...reward.recentGames, gameId];
    reward.recentGames = recent.length - this.keep >= trimStep(this.keep) ? recent.slice(-this.keep) : recent;
    return 'paid';
  }

  async setName(playerId: string, playerName: string, at: number): Promise<Reward | null> {
    const reward = this.rewards.get(playerId);
    if (!reward) return null;
    Object.assign(reward, { playerName, nameAt: at });
    return structuredClone(reward);
  }

  async markDeleted(playerId: string, at = new Date()): Promise<void> {
    if (!this.deleted.has(playerId)) this.deleted.set(playerId, at);
  }

  async isDeleted(playerId: string): Promise<boolean> {
    return this.deleted.has(playerId);
  }

  async deletedAmong(playerIds: readonly string[]): Promise<Set<string>> {
    return new Set(playerIds.filter((id) => this.deleted.has(id)));
  }

  async forgetDeletedBefore(before: Date): Promise<number> {
    let removed = 0;
    for (const [id, at] of this.deleted) {
      if (at >= before) continue;
      this.deleted.delete(id);
      for (const key of this.paid) if ((JSON.parse(key) as string[])[0] === id) this.paid.delete(key);
      removed += 1;
    }
    return removed;
  }

  private async hook(): Promise<void> {
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    await hook?.();
  }
}
