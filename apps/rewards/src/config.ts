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
  /**
   * game.finished events each replica applies at once, per consumer (payments, histories). They
   * do not depend on order, as two replicas already take them side by side; one at a time, the
   * history lagged at 500 games, each event waiting out its few database round trips.
   */
  GAME_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
});

export type RewardsConfig = z.infer<typeof rewardsEnv>;
