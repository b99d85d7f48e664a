import type { EndReason, MoveRecord, Seat } from '@oasis198/game-rules';
import type { RoomView } from './rooms';
import { EventTypes, type EventType } from './subjects';

export interface Person {
  id: string;
  name: string;
}

export interface UserRegistered {
  userId: string;
  name: string;
}
export interface UserRenamed {
  userId: string;
  name: string;
}
export interface UserDeleted {
  userId: string;
}

export interface RoomSnapshot {
  room: RoomView;
}

export const ROOM_DELETE_REASONS = [
  'deleted',
  'left',
  'empty',
  'waiting-expired',
  'post-game-expired',
  'abandoned',
] as const;
export type RoomDeleteReason = (typeof ROOM_DELETE_REASONS)[number];

export interface RoomDeleted {
  roomId: string;
  /** The room's last version; later than any room.updated of that room. */
  version: number;
  reason: RoomDeleteReason;
  playerIds: string[];
}

export interface GameStarted {
  roomId: string;
  gameId: string;
  gameNumber: number;
  player1: Person;
  player2: Person;
  duration: number;
  turnStart: number;
  deadline: number;
}

export interface MoveMade {
  roomId: string;
  gameId: string;
  gameNumber: number;
  moveIndex: number;
  move: MoveRecord;
  /** The room version after the move. */
  version: number;
}

interface GameFinishedBase {
  /** `${roomId}:${gameNumber}`: the key rewards are paid under, once per player. */
  gameId: string;
  roomId: string;
  gameNumber: number;
  /** Both players, by seat, whatever the result. */
  player1: Person;
  player2: Person;
  /** The room's turn duration in seconds (14, 32, 60 or 300). */
  duration: number;
  /** How long the game ran, in seconds. */
  playedSeconds: number;
  /**
   * The game's AI seed, revealed now, and the commitment published when it started (64 lowercase
   * hex characters each), so anyone can check every AI number later (docs/fair-play.md). Null
   * only for a game started before fair play, which had no seed.
   */
  aiSeed: string | null;
  aiCommit: string | null;
  /** SPEC's 6-digit specialRandom, revealed with the game's end. It keys nothing. */
  specialRandom: number;
  /** How many moves the game had. */
  moves: number;
  /**
   * Every move of the game, as the engine recorded it (at most MOVE_LIMIT, about 25 KiB), so the
   * game can be replayed and checked later from this one event (issue 15, My games). Absent only
   * from events written before it was added.
   */
  moveList?: MoveRecord[];
  finishedAt: string;
}

/** A game with a result: 198 reached, a timeout or a player leaving. */
export interface GameWon extends GameFinishedBase {
  draw: false;
  winner: Person & { seat: Seat };
  loser: Person & { seat: Seat };
  endReason: Exclude<EndReason, 'moveLimit'>;
}

/** A draw: MOVE_LIMIT moves without reaching 198. Nobody wins; each player gets a played game. */
export interface GameDrawn extends GameFinishedBase {
  draw: true;
  winner: null;
  loser: null;
  endReason: 'moveLimit';
}

export type GameFinished = GameWon | GameDrawn;

export interface EventPayloads {
  [EventTypes.userRegistered]: UserRegistered;
  [EventTypes.userRenamed]: UserRenamed;
  [EventTypes.userDeleted]: UserDeleted;
  [EventTypes.roomCreated]: RoomSnapshot;
  [EventTypes.roomUpdated]: RoomSnapshot;
  [EventTypes.roomDeleted]: RoomDeleted;
  [EventTypes.gameStarted]: GameStarted;
  [EventTypes.moveMade]: MoveMade;
  [EventTypes.gameFinished]: GameFinished;
}

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

export const gameIdOf = (roomId: string, gameNumber: number): string => `${roomId}:${gameNumber}`;
