import type { DeadlineKind, RoomView } from '@oasis198/contracts';
import {
  abandonedAt,
  aiThinkMs,
  fromSpecSeconds,
  isAiPlayerId,
  seatToMove,
  SEATS,
  postGameExpiry,
  timeoutAt,
  WAITING_ROOM_EXPIRY,
} from '@oasis198/game-rules';

/** One deadline of a room: what falls due when, and which turn it was derived for. */
export interface DeadlineEntry {
  kind: DeadlineKind;
  dueAt: Date;
  gameNumber: number;
  moveIndex: number;
}

/**
 * The deadlines a room has in the state a snapshot shows, earliest first (DECISIONS.md "Time",
 * with the engine's own clock rules):
 * - turn: a running game's turn times out once now > deadline + 1 s, so it is due 1 ms after
 *   timeoutAt;
 * - abandoned: the same turn, still unplayed 60 s past its deadline;
 * - post-game: a finished game's room at game over + 64 s;
 * - waiting: a room with one player, 10 minutes after it started waiting;
 * - ai-join: a room created with the AI option, when its snapshot says the AI takes the seat;
 * - ai-move: the AI's turn, once its think time (aiThinkMs) from the turn's start is over.
 */
export function deriveDeadlines(room: RoomView): DeadlineEntry[] {
  const state = room.whosTurn;
  const turn = { gameNumber: state.gameNumber, moveIndex: state.moves.length };
  const deadlines: DeadlineEntry[] = [];
  const at = (specSeconds: number, extraMs = 0) => new Date(fromSpecSeconds(specSeconds) + extraMs);

  if (state.gameStarted && !state.gameOver) {
    const timeout = timeoutAt(state);
    const abandoned = abandonedAt(state);
    if (timeout !== null) deadlines.push({ kind: 'turn', dueAt: at(timeout, 1), ...turn });
    if (abandoned !== null) deadlines.push({ kind: 'abandoned', dueAt: at(abandoned), ...turn });
    const seat = seatToMove(state);
    const mover = seat ? room.players[SEATS.indexOf(seat)] : undefined;
    if (mover && isAiPlayerId(mover.id)) {
      const thinkMs = aiThinkMs(room._id, turn.gameNumber, turn.moveIndex);
      deadlines.push({ kind: 'ai-move', dueAt: at(state.turnStart, thinkMs), ...turn });
    }
  }
  const expiry = postGameExpiry(state);
  if (expiry !== null) deadlines.push({ kind: 'post-game', dueAt: at(expiry), ...turn });
  if (room.players.length === 1 && !state.gameStarted && typeof room.waitingSince === 'number') {
    deadlines.push({ kind: 'waiting', dueAt: at(room.waitingSince, WAITING_ROOM_EXPIRY * 1000), ...turn });
  }
  if (typeof room.aiJoinsAt === 'number') {
    deadlines.push({ kind: 'ai-join', dueAt: at(room.aiJoinsAt), ...turn });
  }
  return deadlines.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
}
