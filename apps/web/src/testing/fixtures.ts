import type { AuthUser, RewardView, RoomView, WhosTurnView } from '@oasis198/contracts';
import {
  freshOasis,
  initialGameState,
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
export const ROOM_LABEL = roomLabel(ROOM_ID);

export function reward(overrides: Partial<RewardView> = {}): RewardView {
  return {
    playerId: ALICE._id,
    playerName: ALICE.name,
    playedGames: 12,
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

export function whosTurn(overrides: Partial<WhosTurnView> = {}): WhosTurnView {
  // As a client sees it: the secret specialRandom is hidden until the game is over.
  return { ...initialGameState(), specialRandom: null, ...overrides };
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
    whosTurn: whosTurn(),
    version: 1,
    createdAt: '2025-01-01T00:00:00.000Z',
    serverNow: nowSpec(),
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
    whosTurn: whosTurn({
      gameStarted: true,
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

/** A finished game: `winner` brought the total to 198. */
export function overRoom(winner: Seat, overrides: Partial<WhosTurnView> = {}): RoomView {
  const base = gameRoom({ total: 200 });
  const now = nowSpec();
  return {
    ...base,
    gameOver: true,
    version: 9,
    whosTurn: {
      ...base.whosTurn,
      gameOver: true,
      winner,
      endReason: 'reached198',
      endedAt: now - 3,
      deadline: null,
      specialRandom: 123456,
      moves: [],
      player1: { turn: winner !== 'player1', restart: false },
      player2: { turn: winner !== 'player2', restart: false },
      ...overrides,
    },
  };
}
