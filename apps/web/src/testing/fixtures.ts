import type { AuthUser, PlayedGameDetail, RankedReward, RoomView, WhosTurnView } from '@oasis198/contracts';
import {
  aiCommitOf,
  applyMove,
  freshOasis,
  initialGameState,
  oasisKeyOf,
  seatToMove,
  startGame,
  usableOptions,
  roomLabel,
  toSpecSeconds,
  turnDeadline,
  type MoveRecord,
  type OasisCounts,
  type Seat,
} from '@oasis198/game-rules';

export const ALICE: AuthUser = { _id: 'user-alice', name: 'alice', token: 'token-alice' };
export const BOB: AuthUser = { _id: 'user-bob', name: 'bob', token: 'token-bob' };
export const CAROL: AuthUser = { _id: 'user-carol', name: 'carol', token: 'token-carol' };

export const ROOM_ID = '6650aa00bb11cc22dd33ee44';

/** GET /api/rooms/'s answer (SPEC §7: a list): one page of rooms, how many match in X-Total-Count. */
export function roomList(rooms: RoomView[] = [], total = rooms.length) {
  return { body: rooms, headers: { 'X-Total-Count': String(total) } };
}
export const ROOM_LABEL = roomLabel(ROOM_ID);
/** The room's page, and what the room screen asks of the API about it, as fakeApi keys them. */
export const ROOM_PATH = `/quick-battle/rooms/${ROOM_ID}`;
export const GET_ROOM = `GET /api/rooms/${ROOM_ID}`;
export const EDIT_ROOM = `PATCH /api/rooms/${ROOM_ID}/edit`;

/** The gateway's 503 while a service is away, and the text the app shows for it. */
export const UNAVAILABLE_TEXT = 'The service is not available right now. Please try again shortly.';
export const unavailable = { status: 503, body: { message: UNAVAILABLE_TEXT, code: 'UNAVAILABLE' } };

export function reward(overrides: Partial<RankedReward> = {}): RankedReward {
  return {
    playerId: ALICE._id,
    playerName: ALICE.name,
    playedGames: 12,
    wins: 7,
    rank: 4,
    assets: { points: 250, coins: 80 },
    categories: { bronze: false, silver: true, gold: false, platinum: false },
    championStatus: {
      blitzWinner: true,
      eventsWinner: false,
      cityWinner: false,
      countryWinner: false,
      continentWinner: false,
      worldWinner: false,
    },
    levelStatus: { rookie: true, challenger: false, expert: false, master: false, legend: false, level: 3 },
    ...overrides,
  };
}

export const nowSpec = (): number => toSpecSeconds(Date.now());

/** The AI seed of the fixtures' game (32 bytes as hex) and its commitment. */
export const AI_SEED = '7e'.repeat(32);
export const AI_COMMIT = aiCommitOf(AI_SEED);

export function whosTurn(overrides: Partial<WhosTurnView> = {}): WhosTurnView {
  // As a client sees it: the secrets (specialRandom, aiSeed) are hidden until the game is over.
  return { ...initialGameState(), specialRandom: null, aiSeed: null, ...overrides };
}

export function room(overrides: Partial<RoomView> = {}): RoomView {
  return {
    _id: ROOM_ID,
    name: 'Dune',
    roomNumber: 7,
    gameType: 'quick-battle',
    createdBy: { id: ALICE._id, name: ALICE.name },
    duration: 32,
    hasPassCode: false,
    players: [{ id: ALICE._id, name: ALICE.name }],
    gameStarted: false,
    gameOver: false,
    aiCommit: null,
    aiSeed: null,
    whosTurn: whosTurn(),
    version: 1,
    createdAt: '2025-01-01T00:00:00.000Z',
    serverNow: nowSpec(),
    waitingSince: null,
    aiOpponent: false,
    aiJoinsAt: null,
    ...overrides,
  };
}

/** A running game between alice (player 1) and bob (player 2). */
export function gameRoom(
  options: {
    total?: number;
    turn?: Seat;
    moves?: MoveRecord[];
    oasis1?: Partial<OasisCounts>;
    oasis2?: Partial<OasisCounts>;
    deadlineIn?: number;
    version?: number;
  } = {},
): RoomView {
  const now = nowSpec();
  const turn = options.turn ?? 'player1';
  const turnStart = now - 2;
  return room({
    players: [
      { id: ALICE._id, name: ALICE.name },
      { id: BOB._id, name: BOB.name },
    ],
    gameStarted: true,
    version: options.version ?? 5,
    aiCommit: AI_COMMIT,
    whosTurn: whosTurn({
      gameStarted: true,
      aiCommit: AI_COMMIT,
      currentNumber: options.total ?? 0,
      turnStart,
      player1: { turn: turn === 'player1', restart: false },
      player2: { turn: turn === 'player2', restart: false },
      helpOasis: {
        oasis1: { ...freshOasis(), ...options.oasis1 },
        oasis2: { ...freshOasis(), ...options.oasis2 },
      },
      moves: options.moves ?? [],
      deadline: options.deadlineIn !== undefined ? now + options.deadlineIn : turnDeadline(turnStart, 32),
      gameNumber: 1,
    }),
  });
}

/** A finished game: `winner` brought the total to 198 (or, with null, a draw at the move limit). */
export function overRoom(winner: Seat | null, overrides: Partial<WhosTurnView> = {}): RoomView {
  const base = gameRoom({ total: 200 });
  const now = nowSpec();
  const state: WhosTurnView = {
    ...base.whosTurn,
    gameOver: true,
    winner,
    endReason: winner ? 'reached198' : 'moveLimit',
    endedAt: now - 3,
    deadline: null,
    specialRandom: 123456,
    aiSeed: AI_SEED,
    moves: [],
    // The loser holds the turn; after a draw nobody does.
    player1: { turn: winner === 'player2', restart: false },
    player2: { turn: winner === 'player1', restart: false },
    ...overrides,
  };
  // The room mirrors the commitment and the revealed seed at the top level.
  return {
    ...base,
    gameOver: true,
    version: 9,
    aiCommit: state.aiCommit,
    aiSeed: state.aiSeed,
    whosTurn: state,
  };
}

/**
 * A whole game played through the engine (libs/game-rules), as the server plays it: each player
 * picks 7 with the first Support Oasis option they may use, until one reaches 198.
 */
export function enginePlayedGame(aiSeed = AI_SEED): { moves: MoveRecord[]; winner: Seat } {
  const duration = 32;
  let nowMs = Date.UTC(2026, 0, 1, 12);
  let state = startGame(initialGameState(), { duration, nowMs, specialRandom: 123456, aiSeed });
  while (!state.gameOver) {
    const seat = seatToMove(state) as Seat;
    const option = usableOptions(state.currentNumber, state.helpOasis[oasisKeyOf(seat)])[0] ?? 'plain';
    nowMs += 1500;
    const next = applyMove(state, seat, { number: 7, option }, { duration, nowMs });
    if (!next.ok) throw new Error(`the engine refused a move: ${next.message}`);
    state = next.state;
  }
  return { moves: state.moves, winner: state.winner as Seat };
}

/** A finished game of ALICE's history (player 1, against BOB), with its moves as the server serves it. */
export function playedGame(overrides: Partial<PlayedGameDetail> = {}): PlayedGameDetail {
  const { moves, winner } = enginePlayedGame();
  return {
    gameId: `${ROOM_ID}:1`,
    roomId: ROOM_ID,
    finishedAt: '2026-01-01T12:01:30.000Z',
    seat: 'player1',
    opponent: { id: BOB._id, name: BOB.name },
    result: winner === 'player1' ? 'won' : 'lost',
    endReason: 'reached198',
    moves: moves.length,
    duration: 32,
    aiCommit: AI_COMMIT,
    aiSeed: AI_SEED,
    verifiable: true,
    event: null,
    moveList: moves,
    ...overrides,
  };
}
