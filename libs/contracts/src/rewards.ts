import type {
  ChampionTitle,
  EndReason,
  LevelStatusName,
  MoveRecord,
  PremiumCategory,
  Seat,
} from '@oasis198/game-rules';
import { z } from 'zod';
import type { Person } from './events';
import { idSchema, strictBody, wholeNumber, wholeNumberValue } from './schema';
import { type TokenClaims, usernameSchema } from './users';

/** SPEC §3's reward / profile record, plus the games won (the leaderboard's second key). */
export interface RewardView {
  playerId: string;
  playerName: string;
  playedGames: number;
  /** Games won against a person (a win against the AI pays nothing and counts nothing). */
  wins: number;
  assets: { points: number; coins: number };
  categories: Record<PremiumCategory, boolean>;
  championStatus: Record<ChampionTitle, boolean>;
  levelStatus: Record<LevelStatusName, boolean> & { level: number };
}

/**
 * A record with its place on the leaderboard (GET /api/rewards/{userId} and every list item):
 * ranked by points, then wins, then name; players equal in all three share a rank (1, 2, 2, 4).
 */
export interface RankedReward extends RewardView {
  rank: number;
}

/**
 * A page of the leaderboard as rewards.list answers it over NATS. Over HTTP, GET /api/rewards/
 * answers SPEC §7's list (`rewards`) with the total in the X-Total-Count header.
 */
export interface RewardPage {
  rewards: RankedReward[];
  page: number;
  pageSize: number;
  total: number;
}

/** The response header of a paged list that carries the number of items in all pages. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** SPEC's create payload; playerId must be the caller's own id (another answers 403). */
export const createRewardBodySchema = strictBody({
  playerId: z
    .string({ error: 'playerId must be your user id.' })
    .min(1, 'playerId must be your user id.')
    .max(64, 'playerId must be your user id.')
    .meta({ description: "The caller's own user id (another id answers 403)." }),
  playerName: usernameSchema,
});
export type CreateRewardBody = z.infer<typeof createRewardBodySchema>;

/** The only field a client may change: points, coins, levels and titles are earned, not set. */
export const editRewardBodySchema = strictBody({ playerName: usernameSchema });
export type EditRewardBody = z.infer<typeof editRewardBodySchema>;

export interface EditRewardResponse {
  reward: RewardView;
}

export interface DeleteRewardResponse {
  message: string;
}

export interface GetRewardRequest {
  userId: string;
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

const PAGE_MESSAGE = 'page must be a whole number of at least 1.';
const PAGE_SIZE_MESSAGE = `pageSize must be a whole number from 1 to ${REWARDS_MAX_PAGE_SIZE}.`;

/** GET /api/rewards/?page=&pageSize= */
export const listRewardsQuerySchema = z.strictObject({
  page: wholeNumber(PAGE_MESSAGE, 1).optional().meta({ default: 1 }),
  pageSize: wholeNumber(PAGE_SIZE_MESSAGE, 1, REWARDS_MAX_PAGE_SIZE)
    .optional()
    .meta({ default: REWARDS_PAGE_SIZE }),
});
export type ListRewardsQuery = z.infer<typeof listRewardsQuerySchema>;

/** rewards.list over NATS: the same rules on JSON numbers; a missing one takes its default. */
export const listRewardsRequestSchema = z.object({
  page: wholeNumberValue(PAGE_MESSAGE, 1).default(1),
  pageSize: wholeNumberValue(PAGE_SIZE_MESSAGE, 1, REWARDS_MAX_PAGE_SIZE).default(REWARDS_PAGE_SIZE),
});
export type ListRewardsRequest = z.infer<typeof listRewardsRequestSchema>;

/** A player id in a rewards request (rewards.get, .edit, .delete, .games, .game): anything else names no record. */
export const rewardIdSchema = idSchema;

/** A game id in rewards.game (`${roomId}:${gameNumber}`): anything longer names no game. */
export const playedGameIdSchema = z.string().min(1).max(128);

/** How many of a player's latest games their history keeps (issue 15: "the last 50 games"). */
export const GAME_HISTORY_SIZE = 50;

export type PlayedGameResult = 'won' | 'lost' | 'draw';

/**
 * One finished game in a player's history, as GET /api/rewards/{userId}/games lists it (newest
 * first, at most GAME_HISTORY_SIZE), from game.finished.
 */
export interface PlayedGame {
  /** `${roomId}:${gameNumber}`. */
  gameId: string;
  roomId: string;
  /** When the game ended (ISO 8601). */
  finishedAt: string;
  /** The player's seat; player1 moves first. */
  seat: Seat;
  /** The other player. The AI is `{ id: 'ai:<roomId>', name: 'AI' }`. */
  opponent: Person;
  result: PlayedGameResult;
  endReason: EndReason;
  /** How many moves the game had. */
  moves: number;
  /** The room's turn duration in seconds. */
  duration: number;
  /** The commitment shown from the game's start and the seed revealed at its end (null before fair play). */
  aiCommit: string | null;
  aiSeed: string | null;
  /** Whether its move list is recorded, so it can be replayed (GET .../games/{gameId}). */
  verifiable: boolean;
}

/** GET /api/rewards/{userId}/games/{gameId}: the game with every move, to replay and check it. */
export interface PlayedGameDetail extends PlayedGame {
  /** Every move in order; null for a game whose game.finished did not carry them (written before). */
  moveList: MoveRecord[] | null;
}

export interface GameHistoryRequest {
  userId: string;
}
export interface PlayedGameRequest {
  userId: string;
  gameId: string;
}

/** The core NATS broadcast Broadcasts.leaderboardChanged: these players' records just changed. */
export interface LeaderboardChanged {
  gameId: string;
  playerIds: string[];
}

/**
 * The leaderboard's push stream (GET /api/rewards/stream, Server-Sent Events): an event of this
 * type, data `{}`, at most once per LEADERBOARD_PUSH_INTERVAL_MS, after games were paid.
 */
export const LEADERBOARD_PUSH_EVENT = 'leaderboard';
export const LEADERBOARD_PUSH_INTERVAL_MS = 1000;

export const REWARD_MESSAGES = {
  notFound: 'This player has no reward record.',
  deleted: 'The reward has been deleted.',
  gameNotFound: "This game is not in the player's history.",
} as const;
