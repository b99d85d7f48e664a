import {
  END_REASONS,
  isAbortedGame,
  MOVE_LIMIT,
  MOVE_OPTIONS,
  type MoveRecord,
  PICK_MAX,
  PICK_MIN,
  SEATS,
} from '@oasis198/game-rules';
import { z } from 'zod';
import type { eventSchemas } from './event-schemas';
import { countSchema, idSchema, specSecondsSchema } from './schema';
import type { EventType } from './subjects';

// The payloads that services parse are zod schemas (parseEvent): an object keeps the fields named
// here and drops whatever else it carries.

export const personSchema = z.object({
  id: idSchema.meta({ description: "The user's id; the AI's is 'ai:<roomId>'." }),
  name: z.string().meta({ example: 'player1' }),
});
export type Person = z.infer<typeof personSchema>;

/** user.registered and user.renamed carry the same fields. */
export const userNamedSchema = z.object({ userId: idSchema, name: z.string().min(1) });
export type UserRegistered = z.infer<typeof userNamedSchema>;
export type UserRenamed = z.infer<typeof userNamedSchema>;

export const userDeletedSchema = z.object({ userId: idSchema });
export type UserDeleted = z.infer<typeof userDeletedSchema>;

export const ROOM_DELETE_REASONS = [
  'deleted',
  'left',
  'empty',
  'waiting-expired',
  'post-game-expired',
  'abandoned',
] as const;
export type RoomDeleteReason = (typeof ROOM_DELETE_REASONS)[number];

export const roomDeletedSchema = z.object({
  roomId: idSchema,
  /** The room's last version; later than any room.updated of that room. */
  version: z.int().min(0),
  reason: z.enum(ROOM_DELETE_REASONS),
  playerIds: z.array(idSchema),
});
export type RoomDeleted = z.infer<typeof roomDeletedSchema>;

const pickSchema = z.int().min(PICK_MIN).max(PICK_MAX);

/** A move as the engine records it (game-rules' MoveRecord, which this schema must match). */
export const moveRecordSchema = z.object({
  player: z.enum(SEATS),
  number: pickSchema,
  option: z.enum(MOVE_OPTIONS),
  aiNumber: pickSchema.meta({ description: "The AI's number for this move (from the seed)." }),
  total: countSchema.meta({ description: 'The running total after the move.' }),
  at: specSecondsSchema.meta({ description: 'When the move was made, in SPEC seconds (since 2022-11-17).' }),
}) satisfies z.ZodType<MoveRecord>;

/** game.started: a game began; its first turn runs from turnStart to deadline (SPEC seconds). */
export const gameStartedSchema = z.object({
  roomId: idSchema,
  gameId: idSchema,
  gameNumber: z.int().min(1),
  player1: personSchema,
  player2: personSchema,
  duration: z.number(),
  turnStart: specSecondsSchema,
  deadline: specSecondsSchema,
});
export type GameStarted = z.infer<typeof gameStartedSchema>;

/** move.made: one move of a game, as the engine recorded it. */
export const moveMadeSchema = z.object({
  roomId: idSchema,
  gameId: idSchema,
  gameNumber: z.int().min(1),
  moveIndex: z.int().min(0),
  move: moveRecordSchema,
  /** The room version after the move. */
  version: z.int().min(0),
});
export type MoveMade = z.infer<typeof moveMadeSchema>;

/** An AI seed or its commitment: 32 bytes as 64 lowercase hex characters (game-rules' isAiSeed). */
export const aiHexSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** 64 lowercase hex characters (docs/fair-play.md); null for a game started before fair play. */
const hexOrNull = aiHexSchema.nullable();

const gameFinishedBase = {
  /** `${roomId}:${gameNumber}`: the key rewards are paid under, once per player. */
  gameId: idSchema,
  roomId: idSchema,
  gameNumber: z.number(),
  /** Both players, by seat, whatever the result. */
  player1: personSchema,
  player2: personSchema,
  /** The room's turn duration in seconds (14, 32, 60 or 300). */
  duration: z.number(),
  /** How long the game ran, in seconds. */
  playedSeconds: z.number(),
  /**
   * The game's AI seed, revealed now, and the commitment published when it started (64 lowercase
   * hex characters each), so anyone can check every AI number later (docs/fair-play.md). Null
   * only for a game started before fair play, which had no seed.
   */
  aiSeed: hexOrNull,
  aiCommit: hexOrNull,
  /** SPEC's 6-digit specialRandom, revealed with the game's end. It keys nothing. */
  specialRandom: z.number(),
  /** How many moves the game had. */
  moves: z.int().min(0),
  /**
   * Every move of the game, as the engine recorded it (at most MOVE_LIMIT, about 25 KiB), so the
   * game can be replayed and checked later from this one event. Absent only
   * from events written before it was added.
   */
  moveList: z.array(moveRecordSchema).max(MOVE_LIMIT).optional(),
  /** When the game ended (ISO 8601). */
  finishedAt: z.string().refine((text) => !Number.isNaN(Date.parse(text))),
  /**
   * True when the game ended before each player had moved (DECISIONS.md "Aborted games"): it pays
   * nothing, whatever winner and endReason say. Absent from events written before it was added:
   * isAbortedFinish derives it from the moves.
   */
  aborted: z.boolean().optional(),
  /**
   * The Event cup arena (`<eventId>:<startsAt>`) whose room the game was played in, so that each
   * player's history marks it with the event's name (DECISIONS.md "Event cup arenas"); absent for
   * any other room.
   */
  arenaId: z.string().max(64).optional(),
};

const seated = personSchema.extend({ seat: z.enum(SEATS) });

/**
 * A game with a result: 198 reached, a timeout or a player leaving. A game.finished from before
 * draws existed has no `draw`: it always had a winner.
 */
export const gameWonSchema = z.object({
  ...gameFinishedBase,
  draw: z.literal(false).default(false),
  winner: seated,
  loser: seated,
  endReason: z.enum(END_REASONS).exclude(['moveLimit']),
});
export type GameWon = z.infer<typeof gameWonSchema>;

/** A draw: MOVE_LIMIT moves without reaching 198. Nobody wins; each player gets a played game. */
export const gameDrawnSchema = z.object({
  ...gameFinishedBase,
  draw: z.literal(true),
  winner: z.null(),
  loser: z.null(),
  endReason: z.literal('moveLimit'),
});
export type GameDrawn = z.infer<typeof gameDrawnSchema>;

/**
 * game.finished: two different players; a draw names nobody else, and a won game's winner and
 * loser are those two players.
 */
export const gameFinishedSchema = z
  .union([gameDrawnSchema, gameWonSchema])
  .refine((game) => game.player1.id !== game.player2.id)
  .refine(
    (game) =>
      game.draw ||
      (game.winner.id !== game.loser.id &&
        [game.winner.id, game.loser.id].every((id) => id === game.player1.id || id === game.player2.id)),
  );
export type GameFinished = GameWon | GameDrawn;

/** The data of each event type (event-schemas.ts). */
export type EventPayloads = { [T in EventType]: z.output<(typeof eventSchemas)[T]> };

/** What every JetStream message body holds. The `id` is also the Nats-Msg-Id used for de-duplication. */
export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  occurredAt: string;
  requestId?: string;
  data: EventPayloads[T];
}

/** Deterministic msg-ids: the same fact always gets the same id, so a re-publish is de-duplicated. */
export const EventIds = {
  userRegistered: (userId: string) => `user.registered:${userId}`,
  userRenamed: (userId: string, name: string, at: number) => `user.renamed:${userId}:${at}:${name}`,
  userDeleted: (userId: string) => `user.deleted:${userId}`,
  roomCreated: (roomId: string) => `room.created:${roomId}`,
  roomUpdated: (roomId: string, version: number) => `room.updated:${roomId}:${version}`,
  roomDeleted: (roomId: string) => `room.deleted:${roomId}`,
  gameStarted: (gameId: string) => `game.started:${gameId}`,
  moveMade: (gameId: string, moveIndex: number) => `move.made:${gameId}:${moveIndex}`,
  gameFinished: (gameId: string) => `game.finished:${gameId}`,
} as const;

/**
 * Whether a finished game was aborted: as the event says, or for an event from before the field,
 * from its moves (turns alternate, so fewer than two moves means a player never moved).
 */
export function isAbortedFinish(
  game: Pick<GameFinished, 'aborted' | 'endReason' | 'moveList' | 'moves'>,
): boolean {
  if (game.aborted !== undefined) return game.aborted;
  const { endReason } = game;
  if (game.moveList) return isAbortedGame({ gameOver: true, endReason, moves: game.moveList });
  return isAbortedGame({ gameOver: true, endReason, moves: [] }) && game.moves < SEATS.length;
}

export const gameIdOf = (roomId: string, gameNumber: number): string => `${roomId}:${gameNumber}`;
