import {
  CHAMPION_TITLES,
  END_REASONS,
  LEVEL_STATUSES,
  PREMIUM_CATEGORIES,
  SEATS,
} from '@oasis198/game-rules';
import { z } from 'zod';
import { aiHexSchema, moveRecordSchema } from './events';
import { countSchema, idSchema, strictBody, wholeNumber, wholeNumberValue } from './schema';
import { type MessageResponse, type TokenClaims, usernameSchema } from './users';

/** An object of one true-or-false flag per name (SPEC §3's categories, titles and levels). */
function flagsOf<const Names extends readonly string[]>(names: Names) {
  return z.object(
    Object.fromEntries(names.map((name) => [name, z.boolean()])) as Record<Names[number], z.ZodBoolean>,
  );
}

/** SPEC §3's reward / profile record, plus the games won (the leaderboard's second key). */
export const rewardViewSchema = z
  .object({
    playerId: z.string(),
    playerName: z.string().meta({ example: 'player1' }),
    playedGames: countSchema,
    wins: countSchema.meta({
      description: 'Games won against a person (a win against the AI pays nothing and counts nothing).',
    }),
    assets: z.object({
      points: countSchema.meta({ example: 130 }),
      coins: countSchema.meta({ example: 42 }),
    }),
    categories: flagsOf(PREMIUM_CATEGORIES),
    championStatus: flagsOf(CHAMPION_TITLES),
    levelStatus: flagsOf(LEVEL_STATUSES).extend({
      level: z.int().min(1).meta({ example: 2, description: '1 + floor(points / 100)' }),
    }),
  })
  .meta({ description: "SPEC §3's reward / profile record, plus the games won." });
export type RewardView = z.infer<typeof rewardViewSchema>;

/**
 * A record with its place on the leaderboard (GET /api/rewards/{userId} and every list item):
 * ranked by points, then wins, then name; players equal in all three share a rank (1, 2, 2, 4).
 */
export const rankedRewardSchema = rewardViewSchema
  .extend({
    rank: z
      .int()
      .min(1)
      .meta({
        example: 3,
        description:
          'Place on the leaderboard by points, then wins, then name (most first, name A to Z); players ' +
          'equal in all three share a rank (1, 2, 2, 4).',
      }),
  })
  .meta({ description: 'A reward record with its place on the leaderboard.' });
export type RankedReward = z.infer<typeof rankedRewardSchema>;

/** GET /api/rewards/: SPEC §7's list, one page of the leaderboard (its size in X-Total-Count). */
export const leaderboardSchema = z.array(rankedRewardSchema);

const PAGE_MESSAGE = 'page must be a whole number of at least 1.';

/**
 * A page of the leaderboard as rewards.list answers it over NATS. Over HTTP, GET /api/rewards/
 * answers SPEC §7's list (`rewards`) with the total in the X-Total-Count header.
 */
export const rewardPageSchema = z.object({
  rewards: leaderboardSchema,
  /** As asked: a page past the end is an empty page of that number, however large. */
  page: wholeNumberValue(PAGE_MESSAGE, 1),
  pageSize: countSchema,
  total: countSchema,
});
export type RewardPage = z.infer<typeof rewardPageSchema>;

/** The response header of a paged list that carries the number of items in all pages. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** A reward record carries its player's name: the caller's own username (another answers 403). */
const ownUsername = usernameSchema.meta({
  description: "4 to 16 letters or digits (SPEC §5): the caller's own username (another answers 403).",
  example: 'player1',
});

/** SPEC's create payload; playerId must be the caller's own id (another answers 403). */
export const createRewardBodySchema = strictBody({
  playerId: z
    .string({ error: 'playerId must be your user id.' })
    .min(1, 'playerId must be your user id.')
    .max(64, 'playerId must be your user id.')
    .meta({ description: "The caller's own user id (another id answers 403)." }),
  playerName: ownUsername,
});
export type CreateRewardBody = z.infer<typeof createRewardBodySchema>;

/**
 * The only field a client may change, and only to their own username (SPEC: copied after a rename);
 * points, coins, levels and titles are earned, not set.
 */
export const editRewardBodySchema = strictBody({
  playerName: ownUsername,
});
export type EditRewardBody = z.infer<typeof editRewardBodySchema>;

export const editRewardResponseSchema = z.object({ reward: rewardViewSchema });
export type EditRewardResponse = z.infer<typeof editRewardResponseSchema>;

export type DeleteRewardResponse = MessageResponse;

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

/** How many of a player's latest games their history keeps ("the last 50 games"). */
export const GAME_HISTORY_SIZE = 50;

/** 'aborted': the game ended before both players moved, and paid nothing (DECISIONS.md). */
export const PLAYED_GAME_RESULTS = ['won', 'lost', 'draw', 'aborted'] as const;
export type PlayedGameResult = (typeof PLAYED_GAME_RESULTS)[number];

/**
 * One finished game in a player's history, as GET /api/rewards/{userId}/games lists it (newest
 * first, at most GAME_HISTORY_SIZE), from game.finished. Entries stored before a field existed
 * answer '' or 0 for it (rewards' toPlayedGame), so ids and counts have no lower bound here.
 */
export const playedGameSchema = z
  .object({
    gameId: z
      .string()
      .meta({ example: '6650c0ffee0000000000beef:2', description: '`<roomId>:<gameNumber>`' }),
    roomId: z.string(),
    /** When the game ended (ISO 8601). */
    finishedAt: z.iso.datetime().meta({ example: '2026-01-01T12:00:00.000Z' }),
    seat: z.enum(SEATS).meta({ description: "The player's seat; player1 moved first." }),
    opponent: z
      .object({ id: z.string(), name: z.string().meta({ example: 'player2' }) })
      .meta({ description: "The other player; the AI is { id: 'ai:<roomId>', name: 'AI' }." }),
    result: z.enum(PLAYED_GAME_RESULTS),
    endReason: z.enum(END_REASONS),
    moves: countSchema.meta({ description: 'How many moves the game had.' }),
    duration: countSchema.meta({ example: 32, description: 'Seconds per turn.' }),
    aiCommit: aiHexSchema
      .nullable()
      .meta({ description: "SHA-256 of the game's AI seed, shown from its start (null before fair play)." }),
    aiSeed: aiHexSchema
      .nullable()
      .meta({ description: 'The AI seed, revealed when the game ended (null before fair play).' }),
    verifiable: z
      .boolean()
      .meta({ description: 'Whether its moves are recorded, so it can be replayed and checked.' }),
    event: z.string().nullable().meta({
      example: 'Event 9',
      description: 'The Event cup event of an arena game, by its name; null for any other game.',
    }),
  })
  .meta({ description: "One finished game in a player's history." });
export type PlayedGame = z.infer<typeof playedGameSchema>;

/** GET /api/rewards/{userId}/games: the player's last games, newest first. */
export const gameHistorySchema = z.array(playedGameSchema).max(GAME_HISTORY_SIZE);

/** GET /api/rewards/{userId}/games/{gameId}: the game with every move, to replay and check it. */
export const playedGameDetailSchema = playedGameSchema
  .extend({
    moveList: z.array(moveRecordSchema).nullable().meta({
      description:
        'Every move in order; null for a game whose moves were not recorded (ended before they were).',
    }),
  })
  .meta({
    description: 'A game with every move, to replay it and check the commitment and every AI number.',
  });
export type PlayedGameDetail = z.infer<typeof playedGameDetailSchema>;

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
/** The `data` of a leaderboard push: nothing; the client refetches what it shows. */
export const leaderboardPushDataSchema = z.object({});
export const LEADERBOARD_PUSH_INTERVAL_MS = 1000;

export const REWARD_MESSAGES = {
  notFound: 'This player has no reward record.',
  deleted: 'The reward has been deleted.',
  gameNotFound: "This game is not in the player's history.",
  notYourName: 'playerName must be your own username: a reward record carries its player’s name.',
} as const;
