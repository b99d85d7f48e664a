import { ARENA_ROOMS_PER_REQUEST } from '@oasis198/contracts';
import { baseEnv, mongoEnv } from '@oasis198/service-kit';
import { z } from 'zod';

const ms = z.coerce.number().int().min(0);
const minutes = (n: number) => n * 60_000;

/**
 * Arena schedules (DECISIONS.md "Event cup arenas"): each enabled event starts an arena every
 * EVERY_MS (aligned to the epoch, so 60 minutes is each full hour) that runs DURATION_MS. An
 * EVERY_MS of 0 turns the event off. Test stacks shorten them.
 */
export const tournamentsEnv = baseEnv.merge(mongoEnv).extend({
  /** Port of /health and /metrics (the local stack gives tournaments 3105). */
  HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(3105),
  EVENT_2_EVERY_MS: ms.default(minutes(60)),
  EVENT_2_DURATION_MS: ms.default(minutes(8)),
  EVENT_6_EVERY_MS: ms.default(minutes(30)),
  EVENT_6_DURATION_MS: ms.default(minutes(8)),
  EVENT_9_EVERY_MS: ms.default(minutes(10)),
  EVENT_9_DURATION_MS: ms.default(minutes(8)),
  /** How often the replica holding the arena lease pairs free players and ends arenas. */
  ARENA_TICK_MS: z.coerce.number().int().min(20).max(10_000).default(200),
  /** The arena lease: a replica that stops renewing it is replaced after this long. */
  ARENA_LEASE_MS: z.coerce.number().int().min(500).max(60_000).default(5_000),
  /**
   * How long an ended arena waits for games started before its end (they count when they end),
   * at most, before its final standings and prizes: a 250-move game of 14 s turns fits.
   */
  ARENA_SETTLE_MAX_MS: ms.default(minutes(60)),
  /** A player who plays in another room is tried again after this long. */
  ARENA_BUSY_RETRY_MS: ms.default(5_000),
  /** How long to wait for rooms or rewards to answer. */
  RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(3_000),
  /**
   * How long to wait for rooms to open a batch of arena rooms: its writes queue behind the other
   * services' in the database, and a batch asked again while rooms still opens it waits longer.
   */
  ARENA_ROOMS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Batches of arena room openings the lease holder runs at once (the rounds do not wait for
   * them). Two make a pipeline: one batch's seats are written while rooms opens the one before;
   * more only queue their writes behind each other in the database, and all finish late.
   */
  ARENA_OPENINGS_AT_ONCE: z.coerce.number().int().min(1).max(100).default(2),
  /**
   * Pairs of a round opened in one batch: their pairings, seats and states one write each, their
   * rooms one request to rooms (at most ARENA_ROOMS_PER_REQUEST, so that a batch's seats fit in
   * one write).
   */
  ARENA_OPENING_BATCH: z.coerce.number().int().min(1).max(ARENA_ROOMS_PER_REQUEST).default(40),
  /**
   * How long before an arena's start its players are paired, their pairings and seats written;
   * rooms opens their rooms at the start. 0 pairs at the start only. Everyone is free at the
   * start, so otherwise all of the start's writes would come at once, in front of the rooms.
   */
  ARENA_PAIR_BEFORE_START_MS: ms.max(60_000).default(5_000),
  /** Players shown in an arena's standings, at most (the first ones). */
  STANDINGS_SHOWN: z.coerce.number().int().min(3).max(1000).default(100),
});

export type TournamentsConfig = z.infer<typeof tournamentsEnv>;
