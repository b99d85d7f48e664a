// Room snapshots for the deadline tests (service-kit's schedules, the game timer): as rooms shows rooms,
// built from a real engine state, so the deadlines the timer derives follow the engine's clock.
import type { RoomView } from '@oasis198/contracts';
import {
  initialGameState,
  startGame,
  TIME_BASE_MS,
  toSpecSeconds,
  type GameState,
} from '@oasis198/game-rules';

/** A fixed instant well after the SPEC time base. */
export const T0 = TIME_BASE_MS + 50_000_000;
export const sec = 1000;

/** A game started at `nowMs` with turns of `duration` seconds (fixed seed): player 1 to move. */
export const startedGame = (nowMs = T0, duration = 14): GameState =>
  startGame(initialGameState(), { duration, nowMs, specialRandom: 123456, aiSeed: 'a1'.repeat(32) });

/** A full room (players a and b) in `state`, as rooms shows it: the seed only once the game is over. */
export function roomView(state: GameState, overrides: Partial<RoomView> = {}): RoomView {
  const aiSeed = state.gameOver ? state.aiSeed : null;
  return {
    _id: 'room-1',
    name: 'Room 1',
    roomNumber: 1,
    gameType: 'quick-battle',
    createdBy: { id: 'a', name: 'a' },
    duration: 14,
    hasPassCode: false,
    players: [
      { id: 'a', name: 'a' },
      { id: 'b', name: 'b' },
    ],
    gameStarted: state.gameStarted,
    gameOver: state.gameOver,
    aiCommit: state.aiCommit,
    aiSeed,
    whosTurn: { ...state, specialRandom: null, aiSeed },
    version: 1,
    createdAt: new Date(T0).toISOString(),
    serverNow: toSpecSeconds(T0),
    waitingSince: null,
    aiOpponent: false,
    aiJoinsAt: null,
    ...overrides,
  };
}
