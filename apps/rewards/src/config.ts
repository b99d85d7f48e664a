import { GAME_HISTORY_SIZE } from '@oasis198/contracts';
import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

export const rewardsEnv = baseEnv.merge(mongoEnv).extend({
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3102),
  /** Game ids remembered per player to pay each game once (far more than can be in flight). */
  RECENT_GAMES_KEPT: z.coerce.number().int().min(10).default(200),
  /**
   * How long a paid game's id stays in the player's record past its ledger record, whatever
   * RECENT_GAMES_KEPT says: a handler that read the ledger before that record was written may
   * still be about to credit the game, and the id is what refuses it then.
   */
  RECENT_GAMES_HELD_MS: z.coerce.number().int().min(0).default(600_000),
  /** How long the ids of deleted players are kept, so a late event cannot bring a record back. */
  DELETED_PLAYERS_KEPT_DAYS: z.coerce.number().int().positive().default(30),
  /** Games kept in each player's history, newest first (the last 50). */
  GAME_HISTORY_KEPT: z.coerce.number().int().positive().default(GAME_HISTORY_SIZE),
  /**
   * Public reads (leaderboard pages, records, histories) one replica runs at once; the rest wait
   * in line, and one whose caller has given up by its turn is not read (ReadLine).
   */
  PUBLIC_READS_AT_ONCE: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * Batches of game.finished events each replica applies at once, per consumer (payments,
   * histories). They do not depend on order, as two replicas already take them side by side. One:
   * the next batch is what arrived while this one was in hand, so batches grow with the load.
   */
  GAME_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /**
   * Most game.finished events in one batch, whose players' reads and writes are shared: what
   * arrived while the batches before were in hand, so one event when rewards keeps up. At most 50,
   * so that the `_id` lists of a batch (two players a game) stay ones the database's index serves.
   */
  GAME_EVENTS_BATCH: z.coerce.number().int().min(1).max(50).default(50),
});

export type RewardsConfig = z.infer<typeof rewardsEnv>;
