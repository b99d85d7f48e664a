import {
  AppError,
  ARENA_MESSAGES,
  type DeadlineDueRequest,
  type Person,
  ROOM_MESSAGES,
  type RoomDeleteReason,
} from '@oasis198/contracts';
import {
  abandonedAt,
  AI_PLAYER_NAME,
  aiPlayerId,
  aiThinkMs,
  applyLeave,
  applyMove,
  applyTimeout,
  checkJoinPasscode,
  chooseBotMove,
  currentTurn,
  fromSpecSeconds,
  isAiPlayerId,
  drawSpecialRandom,
  type GameState,
  markReady,
  MAX_PLAYERS,
  type MoveIntent,
  postGameExpiry,
  type RandomSource,
  type Seat,
  SEATS,
  seatToMove,
  startGame,
  toSpecSeconds,
  WAITING_ROOM_EXPIRY,
} from '@oasis198/game-rules';
import { type AiSeedSource, cryptoAiSeed } from './random';
import { refusalError } from './refusals';
import type { RoomRecord } from './room.schema';
import { aiJoinsAt, toRoomView } from './room-view';

/**
 * The rules of a room's life around the game engine, as pure functions: each takes the room as
 * loaded and answers the room after the change (or that nothing changes, or an AppError). The
 * service writes the answer with one guarded update and derives the events from before/after.
 * Every game rule itself comes from @oasis198/game-rules.
 */
export interface Transition {
  /** The room after the change, its version bumped by one. */
  next: RoomRecord;
  /** Set when the change ends with the room's deletion. */
  deleted?: { reason: RoomDeleteReason; version: number };
}

export const UNCHANGED = { unchanged: true } as const;
export type Plan = Transition | typeof UNCHANGED;

/** A deadline that no longer applies (or not yet): nothing is written. */
export interface NotApplied {
  notApplied: string;
}
export type DeadlinePlan = Transition | NotApplied;

export const isUnchanged = (plan: Plan): plan is typeof UNCHANGED => 'unchanged' in plan;

/** The seat of a player: the first player is player1, the second player2; null for anyone else. */
export function seatOf(room: Pick<RoomRecord, 'players'>, playerId: string): Seat | null {
  const index = room.players.findIndex((p) => p.id === playerId);
  return index < 0 ? null : (SEATS[index] ?? null);
}

export function personAt(room: Pick<RoomRecord, 'players'>, seat: Seat): Person {
  const player = room.players[SEATS.indexOf(seat)];
  return player ? { id: player.id, name: player.name } : { id: '', name: '' };
}

/** The room with a new game state (mirrored at the top level) and the next version. */
function withState(
  room: RoomRecord,
  state: GameState,
  nowMs: number,
  patch: Partial<RoomRecord> = {},
): RoomRecord {
  const newGame = state.gameNumber !== room.whosTurn.gameNumber;
  return {
    ...room,
    ...patch,
    whosTurn: state,
    gameStarted: state.gameStarted,
    gameOver: state.gameOver,
    gameStartedAt: newGame ? new Date(nowMs) : room.gameStartedAt,
    version: room.version + 1,
  };
}

/** A change that deletes the room; the final state (if it changed) gets its own version first. */
function deleting(room: RoomRecord, next: RoomRecord, reason: RoomDeleteReason): Transition {
  const stateChanged = next.whosTurn !== room.whosTurn;
  return { next, deleted: { reason, version: stateChanged ? next.version + 1 : next.version } };
}

function isRunning(state: GameState): boolean {
  return state.gameStarted && !state.gameOver;
}

/**
 * Join `{ players: { playerId, playerName }, passCode }`. The second player starts the game at once,
 * with a fresh specialRandom and a fresh secret AI seed (`aiSeed` draws it: the OS CSPRNG unless a
 * test gives its own).
 */
export function planJoin(
  room: RoomRecord,
  player: Person,
  passCode: unknown,
  nowMs: number,
  random: RandomSource,
  aiSeed: AiSeedSource = cryptoAiSeed,
): Plan {
  if (seatOf(room, player.id)) return UNCHANGED;
  if (room.players.length >= MAX_PLAYERS) throw new AppError('ROOM_FULL', ROOM_MESSAGES.full);
  const wrong = checkJoinPasscode(passCode, room.passCode);
  if (wrong) throw new AppError('FORBIDDEN', wrong);
  const players = [...room.players, { id: player.id, name: player.name }];
  const full = players.length === MAX_PLAYERS;
  const state = full
    ? startGame(room.whosTurn, {
        duration: room.duration,
        nowMs,
        specialRandom: drawSpecialRandom(random),
        aiSeed: aiSeed(),
      })
    : room.whosTurn;
  return {
    next: withState(room, state, nowMs, {
      players,
      playerCount: players.length,
      waitingSince: full ? null : new Date(nowMs),
    }),
  };
}

/**
 * Leave `{ players: { playerId, removePlayer: true } }`. Once a game has started the room goes:
 * a running game is ended first (the leaver loses, or the player to move if their time was
 * already up); otherwise the player is removed, and an empty room is deleted.
 */
export function planLeave(room: RoomRecord, playerId: string, nowMs: number): Plan {
  const seat = seatOf(room, playerId);
  if (!seat) throw new AppError('FORBIDDEN', ROOM_MESSAGES.notAPlayer);
  if (room.whosTurn.gameStarted) return endAndDelete(room, seat, nowMs, 'left');
  const players = room.players.filter((p) => p.id !== playerId);
  const next = withState(room, room.whosTurn, nowMs, {
    players,
    playerCount: players.length,
    waitingSince: players.length === 1 ? new Date(nowMs) : null,
  });
  return players.length === 0 ? deleting(room, next, 'empty') : { next };
}

/** Delete: by the creator or a player. A running game is ended first (the deleting player loses). */
export function planDelete(room: RoomRecord, callerId: string, nowMs: number): Plan {
  const seat = seatOf(room, callerId);
  if (!seat && room.createdBy.id !== callerId) {
    throw new AppError('FORBIDDEN', ROOM_MESSAGES.notCreatorOrPlayer);
  }
  return endAndDelete(room, seat, nowMs, 'deleted');
}

function endAndDelete(
  room: RoomRecord,
  leaver: Seat | null,
  nowMs: number,
  reason: RoomDeleteReason,
): Transition {
  let state = room.whosTurn;
  if (leaver && isRunning(state)) {
    const ended = applyLeave(state, leaver, { nowMs });
    if (!ended.ok) throw refusalError(ended);
    state = ended.state;
  }
  return deleting(room, withState(room, state, nowMs), reason);
}

/**
 * Ready `{ whosTurnReadyPlayer: { <seat>: { turn: false, restart: true } } }`, for the caller's own
 * seat only. When both are ready the next game starts with fresh secrets, as in planJoin.
 */
export function planReady(
  room: RoomRecord,
  playerId: string,
  seat: Seat,
  nowMs: number,
  random: RandomSource,
  aiSeed: AiSeedSource = cryptoAiSeed,
): Plan {
  const own = seatOf(room, playerId);
  if (!own) throw new AppError('FORBIDDEN', ROOM_MESSAGES.notAPlayer);
  if (own !== seat) throw new AppError('FORBIDDEN', ROOM_MESSAGES.notYourSeat);
  // An arena pairs its players anew after each game: its room plays one.
  if (room.gameType === 'tournament') throw new AppError('CONFLICT', ARENA_MESSAGES.playedOnce);
  const result = markReady(room.whosTurn, seat, {
    duration: room.duration,
    nowMs,
    nextSpecialRandom: drawSpecialRandom(random),
    nextAiSeed: aiSeed(),
  });
  if (!result.ok) throw refusalError(result);
  if (result.state === room.whosTurn) return UNCHANGED;
  const other = personAt(room, seat === 'player1' ? 'player2' : 'player1');
  if (isAiPlayerId(other.id) && !result.restarted) {
    // The AI is always up for another game: it says so as soon as its opponent does.
    return planReady(
      { ...room, whosTurn: result.state },
      other.id,
      seatOf(room, other.id) as Seat,
      nowMs,
      random,
      aiSeed,
    );
  }
  return { next: withState(room, result.state, nowMs) };
}

/** Move `{ move: { number, option } }` by the player whose turn it is; "random" is drawn here. */
export function planMove(
  room: RoomRecord,
  playerId: string,
  intent: MoveIntent,
  nowMs: number,
  random: RandomSource,
): Plan {
  const seat = seatOf(room, playerId);
  if (!seat) throw new AppError('FORBIDDEN', ROOM_MESSAGES.notAPlayer);
  const result = applyMove(room.whosTurn, seat, intent, { duration: room.duration, nowMs, random });
  if (!result.ok) throw refusalError(result);
  return { next: withState(room, result.state, nowMs) };
}

/**
 * A deadline from the game timer, applied only if it is still current and due by this
 * service's clock. The engine decides the timeout; the room rules decide the deletions.
 */
export function planDeadline(
  room: RoomRecord,
  request: DeadlineDueRequest,
  nowMs: number,
  random: RandomSource = Math.random,
): DeadlinePlan {
  const state = room.whosTurn;
  const now = toSpecSeconds(nowMs);
  const turn = { gameNumber: request.gameNumber, moveIndex: request.moveIndex };
  switch (request.kind) {
    case 'turn': {
      const result = applyTimeout(state, turn, { nowMs });
      if (!result.ok) return { notApplied: result.rule === 'timeout-not-due' ? 'not-due' : result.rule };
      return { next: withState(room, result.state, nowMs) };
    }
    case 'abandoned': {
      // The turn was neither played nor timed out: the game ends by timeout (so its result and
      // rewards are not lost) and the room is deleted.
      if (!isRunning(state)) return { notApplied: 'game-not-running' };
      const current = currentTurn(state);
      if (current.gameNumber !== turn.gameNumber || current.moveIndex !== turn.moveIndex) {
        return { notApplied: 'stale-turn' };
      }
      const due = abandonedAt(state);
      if (due === null || now < due) return { notApplied: 'not-due' };
      const result = applyTimeout(state, current, { nowMs });
      if (!result.ok) return { notApplied: result.rule };
      return deleting(room, withState(room, result.state, nowMs), 'abandoned');
    }
    case 'post-game': {
      if (!state.gameOver || state.gameNumber !== request.gameNumber) return { notApplied: 'game-not-over' };
      const due = postGameExpiry(state);
      if (due === null || now < due) return { notApplied: 'not-due' };
      return deleting(room, withState(room, state, nowMs), 'post-game-expired');
    }
    case 'waiting': {
      if (room.players.length !== 1 || !room.waitingSince || state.gameStarted) {
        return { notApplied: 'not-waiting' };
      }
      if (nowMs < new Date(room.waitingSince).getTime() + WAITING_ROOM_EXPIRY * 1000) {
        return { notApplied: 'not-due' };
      }
      return deleting(room, withState(room, state, nowMs), 'waiting-expired');
    }
    case 'ai-join': {
      // A person who joined first keeps the seat; the AI joins only a room still waiting for one.
      const due = aiJoinsAt(room);
      if (due === null) return { notApplied: 'not-waiting' };
      if (now < due) return { notApplied: 'not-due' };
      const ai: Person = { id: aiPlayerId(room._id), name: AI_PLAYER_NAME };
      return planJoin(room, ai, room.passCode, nowMs, random) as Transition;
    }
    case 'ai-move': {
      const seat = seatToMove(state);
      const current = currentTurn(state);
      if (!seat || !isAiPlayerId(personAt(room, seat).id)) return { notApplied: 'not-ai-turn' };
      if (current.gameNumber !== turn.gameNumber || current.moveIndex !== turn.moveIndex) {
        return { notApplied: 'stale-turn' };
      }
      const thinkMs = aiThinkMs(room._id, current.gameNumber, current.moveIndex);
      if (nowMs < fromSpecSeconds(state.turnStart) + thinkMs) return { notApplied: 'not-due' };
      // The AI decides from the room as every client sees it: never from the seed or specialRandom.
      const view = toRoomView(room, nowMs).whosTurn;
      return planMove(
        room,
        personAt(room, seat).id,
        chooseBotMove(view, seat, random),
        nowMs,
        random,
      ) as Transition;
    }
    default:
      return { notApplied: 'unknown-kind' };
  }
}
