import {
  END_REASONS,
  GAME_TYPES,
  type GameState,
  type GameType,
  MESSAGES,
  MOVE_OPTIONS,
  type OasisCounts,
  PASSCODE_PATTERN,
  PICK_MAX,
  PICK_MESSAGE,
  PICK_MIN,
  SEATS,
  TURN_DURATIONS,
  UNKNOWN_OPTION_MESSAGE,
} from '@oasis198/game-rules';
import { z } from 'zod';
import { aiHexSchema, moveRecordSchema, personSchema } from './events';
import {
  countSchema,
  exactlyOne,
  exactlyOneField,
  isObject,
  oneOfKeyed,
  specSecondsSchema,
  strictBody,
  wholeNumber,
} from './schema';
import type { TokenClaims } from './users';

// A room as clients see it, exactly: the web app parses every pushed room with roomViewSchema and
// the gateway's document states it. A field a room stored (or an event written) before it existed
// may lack has a default, so such a room still parses, into the value the server gives it today:
// those fields are optional in what a client accepts and always present in what it gets.

const seatViewSchema = z.object({ turn: z.boolean(), restart: z.boolean() });

const oasisCountsSchema = z.object({
  double: countSchema,
  extra: countSchema,
  minus: countSchema,
  added: countSchema,
  bonus: countSchema,
  matched: countSchema,
}) satisfies z.ZodType<OasisCounts>;

/** An AI seed or its commitment, or null; a game started before fair play has neither. */
const aiHexOrNull = (description: string) => aiHexSchema.nullable().default(null).meta({ description });

/**
 * The game state as clients see it (game-rules' GameState): SPEC §3's whosTurn plus the move list,
 * the result and the deadline. The secrets (specialRandom, aiSeed) are null while it runs.
 */
export const whosTurnViewSchema = z
  .object({
    gameStarted: z.boolean(),
    gameOver: z.boolean(),
    currentNumber: countSchema.meta({ description: 'The running total.' }),
    turnStart: specSecondsSchema.meta({ description: 'When the current turn started, in SPEC seconds.' }),
    specialRandom: z
      .int()
      .min(0)
      .max(999999)
      .nullable()
      .meta({ description: "SPEC's 6-digit number, null until the game is over. It keys nothing." }),
    aiSeed: aiHexOrNull('The AI seed, null until the game is over.'),
    aiCommit: aiHexOrNull("SHA-256 of the AI seed, from the game's start."),
    player1: seatViewSchema,
    player2: seatViewSchema,
    helpOasis: z.object({ oasis1: oasisCountsSchema, oasis2: oasisCountsSchema }),
    moves: z.array(moveRecordSchema),
    winner: z.enum(SEATS).nullable().meta({ description: 'Null while the game runs, and after a draw.' }),
    endReason: z
      .enum(END_REASONS)
      .nullable()
      .meta({ description: "Null while the game runs; 'moveLimit' is a draw after 250 moves." }),
    deadline: specSecondsSchema
      .nullable()
      .meta({ description: 'turnStart + duration + 4 while a turn runs, else null.' }),
    endedAt: specSecondsSchema.nullable().meta({ description: 'When the game ended, else null.' }),
    gameNumber: countSchema.meta({ description: 'Counts the games played in this room.' }),
  })
  .meta({
    description:
      'SPEC §3 whosTurn plus the moves, the result, the deadline and the fair-play fields. specialRandom ' +
      'and aiSeed are null until the game is over.',
  }) satisfies z.ZodType<Omit<GameState, 'specialRandom'> & { specialRandom: number | null }>;
export type WhosTurnView = z.infer<typeof whosTurnViewSchema>;

/**
 * A room as every client sees it. It never carries the passcode (only whether there is one);
 * specialRandom and the AI seed are null until the game is over (DECISIONS.md "Fair play").
 */
export const roomViewSchema = z
  .object({
    _id: z.string().meta({ example: '6650c0ffee0000000000beef' }),
    name: z.string().meta({ example: 'Room 12' }),
    roomNumber: countSchema.meta({ example: 12 }),
    gameType: z.enum(GAME_TYPES),
    createdBy: personSchema,
    // One of TURN_DURATIONS, as the create body allows; the rooms service stores it as a number.
    duration: countSchema.meta({ description: 'Seconds per turn.', enum: [...TURN_DURATIONS], example: 32 }),
    hasPassCode: z
      .boolean()
      .meta({ description: 'Whether joining needs a passcode (the passcode itself is never sent).' }),
    players: z.array(personSchema).max(2),
    gameStarted: z.boolean(),
    gameOver: z.boolean(),
    /**
     * SHA-256 of the current (or last) game's secret AI seed, 64 lowercase hex characters, from the
     * game's start; null before the first game. Mirrored in whosTurn, like gameStarted and gameOver.
     */
    aiCommit: aiHexOrNull(
      "SHA-256 of the game's secret AI seed (64 lowercase hex), from the game's start; null before the " +
        'first game. Also in whosTurn. See docs/fair-play.md.',
    ),
    /**
     * The AI seed itself (32 bytes as 64 lowercase hex characters) once the game is over, so anyone
     * can check aiCommit and every AI number (docs/fair-play.md); null while a game runs and before
     * the first one. Mirrored in whosTurn.
     */
    aiSeed: aiHexOrNull(
      'The AI seed (32 bytes as 64 lowercase hex) once the game is over, to check aiCommit and every AI ' +
        'number; null while the game runs. Also in whosTurn.',
    ),
    whosTurn: whosTurnViewSchema,
    /** Bumped by every change; a client keeps the highest version it has seen. */
    version: countSchema.meta({ description: 'Bumped by every change; also the SSE event id.' }),
    createdAt: z.iso.datetime().meta({ example: '2026-01-01T12:00:00.000Z' }),
    /** The server clock when this view was made, in SPEC seconds, so clients can align their timers. */
    serverNow: specSecondsSchema.meta({
      description: 'The server clock in SPEC seconds (since 2022-11-17), to align timers.',
    }),
    /**
     * Since when the room has had exactly one player (SPEC seconds), else null. A waiting room is
     * deleted WAITING_ROOM_EXPIRY seconds after it; the game timer derives that deadline from here.
     */
    waitingSince: specSecondsSchema
      .nullable()
      .default(null)
      .meta({ description: 'Since when the room has waited with one player (SPEC seconds), else null.' }),
    /**
     * The creator chose "Play the AI if nobody joins within 30 s": while the room waits for a second
     * player, the AI (id `ai:<roomId>`, name 'AI') takes the seat AI_JOIN_AFTER_SECONDS after
     * waitingSince, unless a person joins first.
     */
    aiOpponent: z
      .boolean()
      .default(false)
      .meta({ description: 'The AI takes the empty seat if nobody joins within 30 s.' }),
    /** When the AI takes the empty seat (SPEC seconds), while the room waits for a player; else null. */
    aiJoinsAt: specSecondsSchema.nullable().default(null).meta({
      description:
        'When the AI takes the empty seat (SPEC seconds), while the room waits for a player; else null.',
    }),
  })
  .meta({ description: 'A room. No passcode; the game’s secrets only once it is over.' });
export type RoomView = z.infer<typeof roomViewSchema>;

/** GET /api/rooms/: SPEC §7's list, one page of rooms, newest first (how many in all: X-Total-Count). */
export const roomListSchema = z.array(roomViewSchema);

/** A page of rooms, newest first, as rooms.list answers it over NATS (over HTTP: roomListSchema). */
export const roomPageSchema = z.object({
  rooms: z.array(roomViewSchema),
  /** As asked: a page past the end is an empty page of that number, however large (a JSON number). */
  page: z.number().min(1),
  pageSize: countSchema.meta({ example: 8 }),
  total: countSchema.meta({ example: 3 }),
});
export type RoomPage = z.infer<typeof roomPageSchema>;

export const ROOM_MESSAGES = {
  full: "Game already started — you can't join this room.",
  wrongPasscode: 'Oops, try again!',
  inAnotherRoom: 'You are already playing in another room. Leave it first.',
  notFound: 'This room does not exist any more.',
  notAPlayer: 'Only the players of this room can do that.',
  notCreatorOrPlayer: 'Only the creator or a player of this room can delete it.',
  notYourSeat: 'You can only mark your own seat as ready.',
  rawWhosTurn:
    'The game state is kept by the server. Send a move instead: { "move": { "number", "option" } }.',
  oneIntent: 'Send exactly one of players, whosTurnReadyPlayer or move.',
  identityMismatch: 'You can only act as yourself.',
  concurrent: 'The room changed at the same moment. Please try again.',
  deleted: 'The room has been deleted.',
  createError: 'An error occurred. Please try again',
  noRooms: 'No rooms available / Create a new one to start playing',
} as const;

/** A user id in a body, which must be the caller's own: identity comes from the token. */
const callerId = (field: string) => {
  const message = `${field} must be your user id.`;
  return z.string({ error: message }).min(1, message).max(64, message).meta({
    description: "The caller's own user id (identity comes from the token: another id answers 403).",
  });
};

/** A display name in a body: text of at most 64 characters (the server uses the caller's own name). */
const nameText = (field: string) => {
  const message = `${field} must be text.`;
  return z.string({ error: message }).max(64, message).meta({ example: 'player1' });
};

/** POST /api/rooms/ (SPEC §3 create payload, validated per SPEC §5). */
export const createRoomBodySchema = strictBody(
  {
    gameType: z.enum(GAME_TYPES, { error: MESSAGES.gameType }),
    createdBy: z.strictObject(
      { id: callerId('createdBy.id'), name: nameText('createdBy.name') },
      { error: 'createdBy must be { id, name }.' },
    ),
    duration: z
      .literal(TURN_DURATIONS, { error: MESSAGES.duration })
      .meta({ description: 'Seconds per turn.', example: 32 }),
    passCode: z
      .union(
        [
          z.literal('', { error: MESSAGES.createPasscode }),
          z.string({ error: MESSAGES.createPasscode }).regex(PASSCODE_PATTERN, MESSAGES.createPasscode),
        ],
        { error: MESSAGES.createPasscode },
      )
      .optional()
      .meta({ description: "'' (or none) for an open room, else 1 to 4 digits. Never sent back." }),
    aiOpponent: z.boolean({ error: 'aiOpponent must be true or false.' }).optional().meta({
      description:
        'Play the AI if nobody joins within 30 s (default false): the AI (id ai:<roomId>, name AI) then takes the empty seat.',
    }),
  },
  'Send gameType, createdBy, duration and passCode.',
);
export type CreateRoomBody = z.infer<typeof createRoomBodySchema>;

const seatReadySchema = z.strictObject({
  turn: z.literal(false, { error: 'turn must be false.' }),
  restart: z.literal(true, { error: 'restart must be true.' }),
});

/** PATCH /api/rooms/{id}/edit intents (SPEC §3, DECISIONS.md): join, leave, ready (Play Again) or move. */
export const leaveRoomBodySchema = strictBody({
  players: z.strictObject(
    {
      playerId: callerId('players.playerId'),
      // SPEC §3: the join's players object with removePlayer true; its name is not needed.
      playerName: nameText('players.playerName').optional(),
      removePlayer: z.literal(true, { error: 'players.removePlayer must be true to leave.' }),
    },
    { error: 'players must be an object.' },
  ),
});
export type LeaveRoomBody = z.infer<typeof leaveRoomBodySchema>;

export const joinRoomBodySchema = strictBody({
  players: z.strictObject(
    { playerId: callerId('players.playerId'), playerName: nameText('players.playerName').optional() },
    { error: 'players must be an object.' },
  ),
  passCode: z
    .string({ error: 'passCode must be text.' })
    .max(16, 'passCode must be text.')
    .optional()
    .meta({ description: "The room's passcode, to join a room that has one (a wrong one answers 403)." }),
});
export type JoinRoomBody = z.infer<typeof joinRoomBodySchema>;

export const readyBodySchema = strictBody({
  whosTurnReadyPlayer: exactlyOneField(
    z.strictObject({ player1: seatReadySchema.optional(), player2: seatReadySchema.optional() }),
    'whosTurnReadyPlayer must name player1 or player2.',
  ),
});
export type ReadyBody = z.infer<typeof readyBodySchema>;

export const moveBodySchema = strictBody({
  move: z.strictObject(
    {
      number: z.union(
        [
          z.int({ error: PICK_MESSAGE }).min(PICK_MIN, PICK_MESSAGE).max(PICK_MAX, PICK_MESSAGE),
          z.literal('random', { error: PICK_MESSAGE }),
        ],
        { error: PICK_MESSAGE },
      ),
      option: z.enum(MOVE_OPTIONS, { error: UNKNOWN_OPTION_MESSAGE }).optional(),
    },
    { error: 'move must be { number, option }.' },
  ),
});
export type MoveBody = z.infer<typeof moveBodySchema>;

/**
 * Exactly one intent. Clients never write game state: a raw whosTurn is refused with its own
 * message. The rooms service judges the intent against the room.
 */
export const editRoomBodySchema = z.preprocess(
  (value, ctx) => {
    if (isObject(value) && value['whosTurn'] !== undefined)
      ctx.addIssue({ code: 'custom', message: ROOM_MESSAGES.rawWhosTurn, path: ['whosTurn'], input: value });
    return value;
  },
  oneOfKeyed(
    ['players', 'whosTurnReadyPlayer', 'move'],
    [leaveRoomBodySchema, joinRoomBodySchema, readyBodySchema, moveBodySchema],
    // A passcode goes with a join only.
    (input, present) =>
      exactlyOne(ROOM_MESSAGES.oneIntent)(input, present) ??
      (isObject(input) && input['passCode'] !== undefined && present[0] !== 'players'
        ? ROOM_MESSAGES.oneIntent
        : undefined),
  ),
);
export type EditRoomBody = z.infer<typeof editRoomBodySchema>;

/** A room as a change left it: the answer to an edit, and the data of room.created and room.updated. */
export const roomSnapshotSchema = z.object({ room: roomViewSchema });
export type RoomSnapshot = z.infer<typeof roomSnapshotSchema>;

export const editRoomResponseSchema = roomSnapshotSchema;
export type EditRoomResponse = RoomSnapshot;

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false };

/** GET /api/rooms/?page=&freeSpot=&gameType= */
export const listRoomsQuerySchema = z.strictObject({
  page: wholeNumber('page must be a whole number of at least 1.', 1).optional().meta({ default: 1 }),
  freeSpot: z
    .preprocess(
      (value) => (typeof value === 'string' ? (BOOLEAN_TEXT[value] ?? value) : value),
      z.boolean({ error: 'freeSpot must be true or false.' }),
    )
    .optional()
    .meta({ description: 'Only rooms with exactly one free spot.', default: false }),
  gameType: z.enum(GAME_TYPES, { error: MESSAGES.gameType }).optional(),
});
export type ListRoomsQuery = z.infer<typeof listRoomsQuerySchema>;

// NATS requests to the rooms service.
export interface CreateRoomRequest {
  caller: TokenClaims;
  body: CreateRoomBody;
}
export interface ListRoomsRequest {
  page: number;
  freeSpot: boolean;
  gameType?: GameType;
}
export interface GetRoomRequest {
  roomId: string;
}
export interface MyRoomRequest {
  caller: TokenClaims;
}
/** POST /api/rooms/play-now: no body; the caller comes from the token. */
export interface PlayNowRequest {
  caller: TokenClaims;
}
/** The body is passed through untouched; the rooms service is the one that parses and judges it. */
export interface EditRoomRequest {
  caller: TokenClaims;
  roomId: string;
  body: unknown;
}
export interface DeleteRoomRequest {
  caller: TokenClaims;
  roomId: string;
}

/**
 * 'ai-join': the AI takes the empty seat of a room created with the AI option; 'ai-move': the AI
 * plays its turn once its think time is over.
 */
export const DEADLINE_KINDS = ['turn', 'abandoned', 'post-game', 'waiting', 'ai-join', 'ai-move'] as const;
export type DeadlineKind = (typeof DEADLINE_KINDS)[number];

/** A count as the timer's messages carry it: a whole number from 0. */
const count = countSchema;

/** One deadline as a schedule carries it (times in ms since the epoch). */
export const scheduledDeadlineSchema = z.object({
  kind: z.enum(DEADLINE_KINDS),
  dueAtMs: count,
  gameNumber: count,
  moveIndex: count,
});
export type ScheduledDeadline = z.infer<typeof scheduledDeadlineSchema>;

/**
 * A room's schedule: the deadlines of one room version, earliest first. The game timer holds it on
 * timer.schedules.<roomId>, and the server publishes it, unchanged, to timer.fired.<roomId> when
 * the first one falls due (less the lead).
 */
export const roomScheduleSchema = z.object({
  roomId: z.string(),
  version: count,
  deadlines: z.array(scheduledDeadlineSchema),
});
export type RoomSchedule = z.infer<typeof roomScheduleSchema>;

/** A seat's turn flag, all the timer reads of it. */
const seatTurnSchema = z.looseObject({ turn: z.boolean() });
const specTime = specSecondsSchema;

/**
 * What the game timer reads of a room snapshot (room.created and room.updated carry the whole
 * RoomView): the fields its deadlines derive from, checked; the rest passes through unread.
 */
export const timedRoomSchema = z.looseObject({
  _id: z.string(),
  version: count,
  players: z.array(z.looseObject({ id: z.string() })),
  waitingSince: specTime.nullable().optional(),
  aiJoinsAt: specTime.nullable().optional(),
  whosTurn: z.looseObject({
    gameStarted: z.boolean(),
    gameOver: z.boolean(),
    gameNumber: count,
    moves: z.array(z.unknown()),
    turnStart: specTime,
    deadline: specTime.nullable(),
    endedAt: specTime.nullable(),
    player1: seatTurnSchema,
    player2: seatTurnSchema,
  }),
});

/** A room.created or room.updated payload as the game timer checks it. */
export const timedSnapshotSchema = z.object({ room: timedRoomSchema });

/** From the game timer: a deadline of this room fell due. Rooms applies it only if still current. */
export interface DeadlineDueRequest {
  roomId: string;
  kind: DeadlineKind;
  /** The room version the deadline was armed from. */
  version: number;
  gameNumber: number;
  moveIndex: number;
}
export interface DeadlineDueResponse {
  applied: boolean;
  /**
   * Why nothing changed, when applied is false: 'not-due' (the rooms clock says it is early: ask
   * again shortly), or why the deadline no longer applies ('gone', 'stale-turn', 'game-over', ...).
   */
  reason?: string;
}
