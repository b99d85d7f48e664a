import type { Person } from '@oasis198/contracts';
import type { GameState, GameType } from '@oasis198/game-rules';
import { Schema } from 'mongoose';

export const ROOM_MODEL = 'Room';
export const MEMBERSHIP_MODEL = 'Membership';
export const COUNTER_MODEL = 'Counter';

/**
 * A room as stored. `whosTurn` is the engine's full GameState (with the secret specialRandom and AI
 * seed, which toRoomView reveals only once the game is over);
 * gameStarted and gameOver are mirrored at the top level for queries. Every change bumps
 * `version`. The room log (room-log.ts) is the room's truth; the collection is its projection for
 * lists and Play now, written by each change they see (players, a game started or ended), never by
 * a move, and only over an older version.
 *
 * In the collection, whosTurn is the JSON text of the GameState (the repository converts): nothing
 * queries inside it, every change replaces it whole, and FerretDB's cost for each read and write
 * of a document grows with the number of values in it, which the move list made the largest part
 * (docs/adr/0006-room-log-is-the-commit-point.md). Rooms stored with whosTurn as a sub-document are still read.
 */
/** The version a room is logged at when it is opened: its log subject is empty before it. */
export const FIRST_ROOM_VERSION = 1;

export interface RoomRecord {
  _id: string;
  name: string;
  roomNumber: number;
  gameType: GameType;
  createdBy: Person;
  /** Seconds per turn. */
  duration: number;
  /** '' when the room is open. Never leaves the service. */
  passCode: string;
  players: Person[];
  /** players.length, for the free-spot filter. */
  playerCount: number;
  gameStarted: boolean;
  gameOver: boolean;
  whosTurn: GameState;
  version: number;
  /** When the room last came to have exactly one player; null otherwise. */
  waitingSince: Date | null;
  /** When the current (or last) game started. */
  gameStartedAt: Date | null;
  /**
   * The creator chose to play the AI if nobody joins: the AI takes the seat this many seconds after
   * waitingSince (the service's AI_JOIN_AFTER_S when the room was made). Null or absent: no AI.
   */
  aiJoinAfter?: number | null;
  /** An arena room's arena (`<eventId>:<startsAt>`), which its game.finished names; absent otherwise. */
  arenaId?: string;
  createdAt: Date;
  updatedAt?: Date;
  /** Only in documents from before the room log: a room being deleted (it reads as gone). */
  tombstone?: boolean;
}

const person = new Schema<Person>({ id: { type: String, required: true }, name: String }, { _id: false });

/** Fields only documents from before the room log have (see RoomSchema). */
interface LegacyOutbox {
  outbox?: unknown;
  outboxAt?: Date | null;
}

export const RoomSchema = new Schema<RoomRecord & LegacyOutbox>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    roomNumber: { type: Number, required: true },
    gameType: { type: String, required: true },
    createdBy: { type: person, required: true },
    duration: { type: Number, required: true },
    passCode: { type: String, default: '' },
    players: { type: [person], default: [] },
    playerCount: { type: Number, required: true },
    gameStarted: { type: Boolean, default: false },
    gameOver: { type: Boolean, default: false },
    whosTurn: { type: Schema.Types.Mixed, required: true },
    version: { type: Number, required: true },
    waitingSince: { type: Date, default: null },
    gameStartedAt: { type: Date, default: null },
    aiJoinAfter: { type: Number, default: null },
    arenaId: { type: String, default: undefined },
    tombstone: { type: Boolean, default: false },
    // Only in documents from before the room log: events a crash left unpublished, which the old
    // outbox relay publishes once at start-up (legacy-outboxes.ts); declared so
    // that its updates keep these paths. Nothing writes them any more.
    outbox: { type: Schema.Types.Mixed, default: undefined },
    outboxAt: { type: Date, default: undefined },
  },
  { collection: 'rooms', timestamps: true, minimize: false, versionKey: false },
);
RoomSchema.index({ roomNumber: -1 });

/** Which room a player is in: one document per player, so the unique _id makes "one room at a time" atomic. */
export interface MembershipRecord {
  /** The player's user id. */
  _id: string;
  roomId: string;
  /** When it was taken; a fresh one may belong to a join still in progress. */
  at: Date;
}

export const MembershipSchema = new Schema<MembershipRecord>(
  {
    _id: { type: String, required: true },
    roomId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'memberships', versionKey: false },
);

/** Atomic sequences (room numbers). */
export interface CounterRecord {
  _id: string;
  seq: number;
}

export const CounterSchema = new Schema<CounterRecord>(
  { _id: { type: String, required: true }, seq: { type: Number, default: 0 } },
  { collection: 'counters', versionKey: false },
);
