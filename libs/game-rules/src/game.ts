import { aiCommitOf, aiNumber, drawPick, isAiSeed, isSpecialRandom, type RandomSource } from './ai';
import {
  ABANDONED_AFTER,
  LATE_TOLERANCE,
  MOVE_LIMIT,
  PICK_MAX,
  PICK_MIN,
  POST_GAME_EXPIRY,
  READY_WINDOW,
  TURN_GRACE,
  WINNING_TOTAL,
} from './constants';
import {
  bookkeep,
  freshOasis,
  hasUses,
  MOVE_OPTIONS,
  offeredOptions,
  OPTION_LABELS,
  optionEffect,
  type MoveOption,
  type OasisCounts,
} from './oasis';
import { refuse, type Refusal } from './result';
import { addSpecSeconds, toSpecSeconds } from './time';

export const SEATS = ['player1', 'player2'] as const;
export type Seat = (typeof SEATS)[number];
export type OasisKey = 'oasis1' | 'oasis2';
/** How a game ended; 'moveLimit' is the draw after MOVE_LIMIT moves, the only end without a winner. */
export const END_REASONS = ['reached198', 'timeout', 'left', 'moveLimit'] as const;
export type EndReason = (typeof END_REASONS)[number];

export interface PlayerTurn {
  turn: boolean;
  restart: boolean;
}

export interface MoveRecord {
  player: Seat;
  number: number;
  option: MoveOption;
  /** The AI's pick for this move, shown after it is made. */
  aiNumber: number;
  /** The running total after the move. */
  total: number;
  /** When the move was applied, in SPEC seconds. */
  at: number;
}

/**
 * The game state of a room: SPEC §3's whosTurn plus the move list, the winner, why the game
 * ended and the deadline of the current turn. Times are SPEC seconds (since 2022-11-17).
 */
export interface GameState {
  gameStarted: boolean;
  gameOver: boolean;
  /** The running total. */
  currentNumber: number;
  turnStart: number;
  /**
   * SPEC's 6-digit number, drawn at each start and secret until the game is over; 0 before the
   * first game. It keys nothing (the AI numbers come from aiSeed).
   */
  specialRandom: number;
  /**
   * The game's secret AI seed (32 bytes as 64 lowercase hex characters), from which every AI number
   * derives; null before the first game. Server-side only until the game is over.
   */
  aiSeed: string | null;
  /** SHA-256 of the seed bytes (64 lowercase hex characters), public from the game's start; null before. */
  aiCommit: string | null;
  player1: PlayerTurn;
  player2: PlayerTurn;
  helpOasis: { oasis1: OasisCounts; oasis2: OasisCounts };
  moves: MoveRecord[];
  /** Null while the game runs, and after a draw (endReason 'moveLimit'). */
  winner: Seat | null;
  endReason: EndReason | null;
  /** turnStart + duration + 4 while a turn runs, else null. */
  deadline: number | null;
  /** When the game ended, else null. */
  endedAt: number | null;
  /** Counts games played in this room; names a game together with the room id. */
  gameNumber: number;
}

/** What a player asks for. "random" is drawn by whoever applies the move (the server). */
export interface MoveIntent {
  number: number | 'random';
  option: MoveOption;
}

/** Names one turn of one game; a timeout applies only while its turn is still current. */
export interface TurnRef {
  gameNumber: number;
  moveIndex: number;
}

export interface Clock {
  /** Unix time in milliseconds. */
  nowMs: number;
}

export interface TurnSettings extends Clock {
  /** Seconds per turn: the room's duration. */
  duration: number;
}

/** The fresh secrets of a new game, drawn by whoever starts it (the server, from a CSPRNG). */
export interface GameSecrets {
  /** 100000..999999. */
  specialRandom: number;
  /** 32 bytes as 64 lowercase hex characters. */
  aiSeed: string;
}

export type Transition<Extra = object> = ({ readonly ok: true; state: GameState } & Extra) | Refusal;

export const otherSeat = (seat: Seat): Seat => (seat === 'player1' ? 'player2' : 'player1');
export const isSeat = (value: unknown): value is Seat => value === 'player1' || value === 'player2';
export const oasisKeyOf = (seat: Seat): OasisKey => (seat === 'player1' ? 'oasis1' : 'oasis2');

/** The player who has the turn, or null when nobody does. */
export function seatToMove(
  state: Pick<GameState, 'gameStarted' | 'gameOver' | 'player1' | 'player2'>,
): Seat | null {
  if (!state.gameStarted || state.gameOver) return null;
  if (state.player1.turn) return 'player1';
  if (state.player2.turn) return 'player2';
  return null;
}

export function currentTurn(state: Pick<GameState, 'gameNumber' | 'moves'>): TurnRef {
  return { gameNumber: state.gameNumber, moveIndex: state.moves.length };
}

/**
 * DECISIONS.md "Aborted games": a game that a leave, a deletion or a timeout ends before each
 * player has moved is aborted and pays nothing. Reaching 198 or the move limit takes moves by both.
 */
export function isAbortedGame(
  state: Pick<GameState, 'gameOver' | 'endReason'> & { moves: readonly Pick<MoveRecord, 'player'>[] },
): boolean {
  if (!state.gameOver || (state.endReason !== 'left' && state.endReason !== 'timeout')) return false;
  return !SEATS.every((seat) => state.moves.some((move) => move.player === seat));
}

export function turnDeadline(turnStart: number, duration: number): number {
  return addSpecSeconds(turnStart, duration + TURN_GRACE);
}

/** The clock reading in SPEC seconds; a clock that is not a finite number is a programming error. */
function specNow(nowMs: number): number {
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    throw new RangeError(`nowMs must be a finite number of milliseconds, got ${String(nowMs)}`);
  }
  return toSpecSeconds(nowMs);
}

function checkDuration(duration: number): void {
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0) {
    throw new RangeError(`duration must be a finite number of seconds, got ${String(duration)}`);
  }
}

const NOT_A_PLAYER = (): Refusal => refuse('not-a-player', 'Only the two players of the room can do that.');

/** The state of a room before its first game. */
export function initialGameState(): GameState {
  return {
    gameStarted: false,
    gameOver: false,
    currentNumber: 0,
    turnStart: 0,
    specialRandom: 0,
    aiSeed: null,
    aiCommit: null,
    player1: { turn: false, restart: false },
    player2: { turn: false, restart: false },
    helpOasis: { oasis1: freshOasis(), oasis2: freshOasis() },
    moves: [],
    winner: null,
    endReason: null,
    deadline: null,
    endedAt: null,
    gameNumber: 0,
  };
}

/**
 * Starts a game: total 0, player 1 to move, every option at 3 uses, matched 0, a fresh secret
 * specialRandom and a fresh secret AI seed with its public commitment. Used for the first game
 * when the second player arrives and for every new game after both players pressed Play Again.
 */
export function startGame(state: GameState, settings: TurnSettings & GameSecrets): GameState {
  if (!isSpecialRandom(settings.specialRandom)) {
    throw new RangeError(`specialRandom must be an integer in 100000..999999, got ${settings.specialRandom}`);
  }
  if (!isAiSeed(settings.aiSeed)) {
    throw new RangeError('aiSeed must be 32 bytes as 64 lowercase hex characters');
  }
  checkDuration(settings.duration);
  const now = specNow(settings.nowMs);
  return {
    gameStarted: true,
    gameOver: false,
    currentNumber: 0,
    turnStart: now,
    specialRandom: settings.specialRandom,
    aiSeed: settings.aiSeed,
    aiCommit: aiCommitOf(settings.aiSeed),
    player1: { turn: true, restart: false },
    player2: { turn: false, restart: false },
    helpOasis: { oasis1: freshOasis(), oasis2: freshOasis() },
    moves: [],
    winner: null,
    endReason: null,
    deadline: turnDeadline(now, settings.duration),
    endedAt: null,
    gameNumber: state.gameNumber + 1,
  };
}

export const PICK_MESSAGE = `Pick a whole number from ${PICK_MIN} to ${PICK_MAX}, or "random".`;
export const UNKNOWN_OPTION_MESSAGE = `Choose one of the options: ${MOVE_OPTIONS.join(', ')}.`;

/** Checks an untrusted move intent, as it arrives from a client, without coercing anything. */
export function parseMoveIntent(input: unknown): { ok: true; intent: MoveIntent } | Refusal {
  if (typeof input !== 'object' || input === null) return refuse('pick-out-of-range', PICK_MESSAGE);
  const { number, option = 'plain' } = input as { number?: unknown; option?: unknown };
  if (!(number === 'random' || isPick(number))) return refuse('pick-out-of-range', PICK_MESSAGE);
  if (typeof option !== 'string' || !(MOVE_OPTIONS as readonly string[]).includes(option)) {
    return refuse('unknown-option', UNKNOWN_OPTION_MESSAGE);
  }
  return { ok: true, intent: { number, option: option as MoveOption } };
}

export function isPick(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= PICK_MIN && value <= PICK_MAX;
}

/** True once a turn can no longer be played: now > deadline + 1 s. */
export function isTurnExpired(state: GameState, nowMs: number): boolean {
  return state.deadline !== null && specNow(nowMs) > addSpecSeconds(state.deadline, LATE_TOLERANCE);
}

/**
 * Applies a move for a seat. Refuses, without touching the state, a move when the game is not
 * running, out of turn, after the deadline, with a pick outside 1..9, or with an option that is
 * not offered at the current total or has no uses left. The move that reaches 198 wins; otherwise
 * the MOVE_LIMIT-th move ends the game as a draw.
 */
export function applyMove(
  state: GameState,
  seat: Seat,
  intent: MoveIntent,
  settings: TurnSettings & { random?: RandomSource },
): Transition<{ move: MoveRecord }> {
  checkDuration(settings.duration);
  if (!isSeat(seat)) return NOT_A_PLAYER();
  if (!state.gameStarted) return refuse('game-not-started', 'The game has not started yet.');
  if (state.gameOver) return refuse('game-over', 'The game is over.');
  if (seatToMove(state) !== seat) return refuse('not-your-turn', 'It is not your turn.');
  if (isTurnExpired(state, settings.nowMs)) return refuse('turn-expired', 'Time is up for this turn.');
  // A game stored before fair play has no seed, so its AI numbers cannot be drawn (docs/adr/0003-fair-play-committed-seed.md).
  const aiSeed = state.aiSeed;
  if (!isAiSeed(aiSeed)) {
    return refuse(
      'no-ai-seed',
      'This game was started before fair play and cannot go on. Leave the room to start a new one.',
    );
  }

  const parsed = parseMoveIntent(intent);
  if (!parsed.ok) return parsed;
  const { option } = parsed.intent;

  const key = oasisKeyOf(seat);
  const counts = state.helpOasis[key];
  if (option !== 'plain') {
    if (!offeredOptions(state.currentNumber).includes(option)) {
      return refuse(
        'option-not-offered',
        `${OPTION_LABELS[option]} is not offered at a total of ${state.currentNumber}.`,
      );
    }
    if (!hasUses(counts, option))
      return refuse('option-used-up', `You have no ${OPTION_LABELS[option]} left.`);
  }

  let pick: number;
  if (parsed.intent.number === 'random') {
    if (!settings.random) return refuse('random-unavailable', 'A random pick cannot be drawn here.');
    pick = drawPick(settings.random);
  } else {
    pick = parsed.intent.number;
  }

  const now = specNow(settings.nowMs);
  const ai = aiNumber(aiSeed, state.moves.length);
  const total = Math.max(0, state.currentNumber + optionEffect(option, pick));
  const move: MoveRecord = { player: seat, number: pick, option, aiNumber: ai, total, at: now };
  const other = otherSeat(seat);
  const moves = [...state.moves, move];
  const won = total >= WINNING_TOTAL;
  // DECISIONS.md "Fair play": the 250th move ends a game nobody won as a draw, so no game (and no
  // room snapshot carrying its move list) grows without bound.
  const drawn = !won && moves.length >= MOVE_LIMIT;

  const next: GameState = {
    ...state,
    currentNumber: total,
    helpOasis: { ...state.helpOasis, [key]: bookkeep(counts, option, pick === ai) },
    moves,
    [seat]: { turn: false, restart: false },
    [other]: { turn: !drawn, restart: false },
    // SPEC §4: every move writes a new turnStart, the one that ends the game too.
    turnStart: now,
    ...(won
      ? { gameOver: true, winner: seat, endReason: 'reached198' as const, deadline: null, endedAt: now }
      : drawn
        ? { gameOver: true, winner: null, endReason: 'moveLimit' as const, deadline: null, endedAt: now }
        : { deadline: turnDeadline(now, settings.duration) }),
  };
  return { ok: true, state: next, move };
}

/**
 * Ends the game by timeout: the player who had the turn loses. It applies only when the named
 * turn is still the current one and its time is up (now > deadline + 1 s), so a late or repeated
 * timeout never changes a game twice.
 */
export function applyTimeout(state: GameState, turn: TurnRef, clock: Clock): Transition<{ loser: Seat }> {
  if (!state.gameStarted) return refuse('game-not-started', 'The game has not started yet.');
  if (state.gameOver) return refuse('game-over', 'The game is over.');
  const current = currentTurn(state);
  if (current.gameNumber !== turn.gameNumber || current.moveIndex !== turn.moveIndex) {
    return refuse('stale-turn', 'That turn has already been played.');
  }
  if (!isTurnExpired(state, clock.nowMs)) return refuse('timeout-not-due', 'The turn still has time left.');
  const loser = seatToMove(state) as Seat;
  return { ok: true, state: endGame(state, otherSeat(loser), 'timeout', clock), loser };
}

/**
 * Ends a running game because a player left: the leaver loses. Once the turn has expired
 * (now > deadline + 1 s) the game is already lost by timeout, so it ends that way instead.
 */
export function applyLeave(state: GameState, leaver: Seat, clock: Clock): Transition {
  if (!isSeat(leaver)) return NOT_A_PLAYER();
  if (!state.gameStarted) return refuse('game-not-started', 'The game has not started yet.');
  if (state.gameOver) return refuse('game-over', 'The game is over.');
  if (isTurnExpired(state, clock.nowMs)) {
    // DECISIONS.md: at deadline + 1 s an unplayed turn has already lost the game by timeout, even
    // if the timer service has not applied it yet; a later leave cannot change that result.
    const loser = seatToMove(state) as Seat;
    return { ok: true, state: endGame(state, otherSeat(loser), 'timeout', clock) };
  }
  return { ok: true, state: endGame(state, otherSeat(leaver), 'left', clock) };
}

/** Ends a game with a winner; the loser holds the turn (SPEC: the winner is the one who did not). */
function endGame(
  state: GameState,
  winner: Seat,
  endReason: Exclude<EndReason, 'moveLimit'>,
  clock: Clock,
): GameState {
  return {
    ...state,
    gameOver: true,
    winner,
    endReason,
    deadline: null,
    endedAt: specNow(clock.nowMs),
    [winner]: { turn: false, restart: false },
    [otherSeat(winner)]: { turn: true, restart: false },
  };
}

/**
 * Play Again: marks a player ready once the game is over and within the 50 s ready window. When
 * both are ready the room resets and a new game starts at once (both players are still there).
 * Pressing it twice is harmless.
 */
export function markReady(
  state: GameState,
  seat: Seat,
  settings: TurnSettings & { nextSpecialRandom: number; nextAiSeed: string },
): Transition<{ restarted: boolean }> {
  if (!isSeat(seat)) return NOT_A_PLAYER();
  if (!state.gameOver || state.endedAt === null) {
    return refuse('game-not-over', 'Play Again is possible only after the game is over.');
  }
  if (specNow(settings.nowMs) > addSpecSeconds(state.endedAt, READY_WINDOW)) {
    return refuse('ready-window-closed', 'The time to play again is over.');
  }
  if (state[seat].restart) return { ok: true, state, restarted: false };
  const marked: GameState = { ...state, [seat]: { ...state[seat], restart: true } };
  if (!marked[otherSeat(seat)].restart) return { ok: true, state: marked, restarted: false };
  return {
    ok: true,
    state: startGame(marked, {
      ...settings,
      specialRandom: settings.nextSpecialRandom,
      aiSeed: settings.nextAiSeed,
    }),
    restarted: true,
  };
}

/** When a finished game's room is deleted if its players are not both ready: game over + 64 s. */
export function postGameExpiry(state: Pick<GameState, 'gameOver' | 'endedAt'>): number | null {
  return state.gameOver && state.endedAt !== null ? addSpecSeconds(state.endedAt, POST_GAME_EXPIRY) : null;
}

/** When a room whose turn was neither played nor timed out is deleted: deadline + 60 s. */
export function abandonedAt(state: Pick<GameState, 'deadline'>): number | null {
  return state.deadline === null ? null : addSpecSeconds(state.deadline, ABANDONED_AFTER);
}

/**
 * When the current turn times out: deadline + 1 s. A move is still accepted at exactly this
 * instant; applyTimeout is due from the next millisecond on (now > deadline + 1 s).
 */
export function timeoutAt(state: Pick<GameState, 'deadline'>): number | null {
  return state.deadline === null ? null : addSpecSeconds(state.deadline, LATE_TOLERANCE);
}
