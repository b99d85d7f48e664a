import type { ChampionTitle, LevelStatusName, PremiumCategory } from '@oasis198/game-rules';
import type { TokenClaims } from './users';

/** SPEC §3's reward / profile record, as GET /api/rewards/{userId} answers it. */
export interface RewardView {
  playerId: string;
  playerName: string;
  playedGames: number;
  assets: { points: number; coins: number };
  categories: Record<PremiumCategory, boolean>;
  championStatus: Record<ChampionTitle, boolean>;
  levelStatus: Record<LevelStatusName, boolean> & { level: number };
}

/**
 * A page of the leaderboard as rewards.list answers it over NATS. Over HTTP, GET /api/rewards/
 * answers SPEC §7's list (`rewards`) with the total in the X-Total-Count header.
 */
export interface RewardPage {
  rewards: RewardView[];
  page: number;
  pageSize: number;
  total: number;
}

/** The response header of a paged list that carries the number of items in all pages. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

export interface CreateRewardBody {
  playerId: string;
  playerName: string;
}

export interface EditRewardBody {
  playerName: string;
}

export interface EditRewardResponse {
  reward: RewardView;
}

export interface DeleteRewardResponse {
  message: string;
}

export interface GetRewardRequest {
  userId: string;
}
export interface ListRewardsRequest {
  page: number;
  pageSize: number;
}
export interface CreateRewardRequest {
  caller: TokenClaims;
  body: CreateRewardBody;
}
export interface EditRewardRequest {
  caller: TokenClaims;
  id: string;
  body: EditRewardBody;
}
export interface DeleteRewardRequest {
  caller: TokenClaims;
  id: string;
}

export const REWARDS_PAGE_SIZE = 20;
export const REWARDS_MAX_PAGE_SIZE = 100;

export const REWARD_MESSAGES = {
  notFound: 'This player has no reward record.',
  deleted: 'The reward has been deleted.',
  onlyPlayerName: 'Only playerName can be changed.',
} as const;
