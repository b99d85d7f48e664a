import { GAME_HISTORY_SIZE } from '@oasis198/contracts';
import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

export const rewardsEnv = baseEnv.merge(mongoEnv).extend({
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3102),
  /** Game ids remembered per player to pay each game once (far more than can be in flight). */
  RECENT_GAMES_KEPT: z.coerce.number().int().min(10).default(200),
  /** How long the ids of deleted players are kept, so a late event cannot bring a record back. */
  DELETED_PLAYERS_KEPT_DAYS: z.coerce.number().int().positive().default(30),
  /** Games kept in each player's history, newest first (issue 15: the last 50). */
  GAME_HISTORY_KEPT: z.coerce.number().int().positive().default(GAME_HISTORY_SIZE),
});

export type RewardsConfig = z.infer<typeof rewardsEnv>;
