import type { GameState, GameType, MoveOption, Seat } from '@oasis198/game-rules';
import type { Person } from './events';
import type { TokenClaims } from './users';

/**
 * A room as every client sees it. It never carries the passcode (only whether there is one);
 * specialRandom and the AI seed are null until the game is over (DECISIONS.md "Fair play").
 */
export interface RoomView {
  _id: string;
  name: string;
  roomNumber: number;
  gameType: GameType;
  createdBy: Person;
  /** Seconds per turn. */
  duration: number;
  hasPassCode: boolean;
  players: Person[];
  gameStarted: boolean;
  gameOver: boolean;
  /**
   * SHA-256 of the current (or last) game's secret AI seed, 64 lowercase hex characters, from the
   * game's start; null before the first game. Mirrored in whosTurn, like gameStarted and gameOver.
   */
  aiCommit: string | null;
  /**
   * The AI seed itself (32 bytes as 64 lowercase hex characters) once the game is over, so anyone
   * can check aiCommit and every AI number (docs/fair-play.md); null while a game runs and before
   * the first one. Mirrored in whosTurn.
   */
  aiSeed: string | null;
  whosTurn: WhosTurnView;
  /** Bumped by every change; a client keeps the highest version it has seen. */
  version: number;
  createdAt: string;
  /** The server clock when this view was made, in SPEC seconds, so clients can align their timers. */
  serverNow: number;
  /**
   * Since when the room has had exactly one player (SPEC seconds), else null. A waiting room is
   * deleted WAITING_ROOM_EXPIRY seconds after it; the game timer derives that deadline from here.
   */
  waitingSince?: number | null;
  /**
   * The creator chose "Play the AI if nobody joins within 30 s": while the room waits for a second
   * player, the AI (id `ai:<roomId>`, name 'AI') takes the seat AI_JOIN_AFTER_SECONDS after
   * waitingSince, unless a person joins first.
   */
  aiOpponent?: boolean;
  /** When the AI takes the empty seat (SPEC seconds), while the room waits for a player; else null. */
  aiJoinsAt?: number | null;
}

/** The game state as clients see it: the secrets (specialRandom, aiSeed) are null while it runs. */
export type WhosTurnView = Omit<GameState, 'specialRandom'> & { specialRandom: number | null };

export interface RoomPage {
  rooms: RoomView[];
  page: number;
  pageSize: number;
  total: number;
}

/** POST /api/rooms/ */
export interface CreateRoomBody {
  gameType: GameType;
  createdBy: Person;
  duration: number;
  passCode: string;
  /** Optional (default false): the AI takes the empty seat if nobody joins within 30 s. */
  aiOpponent?: boolean;
}

/** PATCH /api/rooms/{id}/edit bodies (SPEC §3, DECISIONS.md): intents only. */
export interface JoinRoomBody {
  players: { playerId: string; playerName: string };
  passCode?: string;
}
export interface LeaveRoomBody {
  players: { playerId: string; removePlayer: true };
}
export interface ReadyBody {
  whosTurnReadyPlayer: Partial<Record<Seat, { turn: false; restart: true }>>;
}
export interface MoveBody {
  move: { number: number | 'random'; option?: MoveOption };
}
export type EditRoomBody = JoinRoomBody | LeaveRoomBody | ReadyBody | MoveBody;

export interface EditRoomResponse {
  room: RoomView;
}

export interface ListRoomsQuery {
  page?: number;
  /** Only rooms with exactly one free spot. */
  freeSpot?: boolean;
  gameType?: GameType;
}

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
  unknownField: 'This field is not part of a room request:',
  createError: 'An error occurred. Please try again',
  noRooms: 'No rooms available / Create a new one to start playing',
} as const;
