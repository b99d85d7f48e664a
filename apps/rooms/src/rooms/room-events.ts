import {
  EventIds,
  type EventEnvelope,
  EventTypes,
  type GameDrawn,
  gameIdOf,
  type GameWon,
  type RoomView,
} from '@oasis198/contracts';
import {
  fromSpecSeconds,
  type GameState,
  isAbortedGame,
  otherSeat,
  toSpecSeconds,
} from '@oasis198/game-rules';
import { makeEvent } from '@oasis198/service-kit';
import type { RoomRecord } from './room.schema';
import { personAt, type Transition } from './room-transitions';

/**
 * The events a change causes, derived from the room before and after it, in the order they
 * happened: game.finished, then the room.updated snapshot (`view`, the room as the change leaves
 * it; room.created for a new room) and, when the room goes, room.deleted. Each gets its own
 * millisecond of occurredAt, so they keep that order.
 *
 * Only game.finished has readers in GAMES (rewards); the projector publishes nothing else. The
 * snapshot and the deletion stay in the room log entry, stored as a reference to its room, so a
 * rooms replica of the earlier release (a rolling update, a rollback) still derives the room's
 * deadlines from the entry and pushes it. Watchers get every change as a live push instead
 * (room-push.ts). game.started and move.made had no reader and are no longer made.
 */
export function eventsFor(
  prev: RoomRecord | null,
  change: Transition,
  nowMs: number,
  view: RoomView | null,
): EventEnvelope[] {
  const { next, deleted } = change;
  const roomId = next._id;
  const events: EventEnvelope[] = [];
  const at = () => new Date(nowMs + events.length);
  const snapshot = (type: typeof EventTypes.roomCreated | typeof EventTypes.roomUpdated, id: string) => {
    if (!view) throw new Error(`room ${roomId}: a change with a last state needs its view`);
    events.push(makeEvent(type, id, { room: view }, at()));
  };

  if (!prev) {
    snapshot(EventTypes.roomCreated, EventIds.roomCreated(roomId));
    return events;
  }

  const before = prev.whosTurn;
  const after = next.whosTurn;
  const newGame = after.gameNumber !== before.gameNumber;
  const gameId = gameIdOf(roomId, after.gameNumber);

  const result = after.gameOver && (newGame || !before.gameOver) ? resultOf(next, after) : null;
  if (result) {
    const endedAt = after.endedAt ?? toSpecSeconds(nowMs);
    const startedAt = next.gameStartedAt
      ? toSpecSeconds(new Date(next.gameStartedAt).getTime())
      : after.turnStart;
    events.push(
      makeEvent(
        EventTypes.gameFinished,
        EventIds.gameFinished(gameId),
        {
          gameId,
          roomId,
          gameNumber: after.gameNumber,
          ...result,
          player1: personAt(next, 'player1'),
          player2: personAt(next, 'player2'),
          duration: next.duration,
          playedSeconds: Math.max(0, Math.round((endedAt - startedAt) * 1000) / 1000),
          // Revealed with the result, so anyone can check every AI number later.
          aiSeed: after.aiSeed ?? null,
          aiCommit: after.aiCommit ?? null,
          specialRandom: after.specialRandom,
          moves: after.moves.length,
          moveList: after.moves,
          // A game a player left or lost on time before both had moved pays nothing.
          aborted: isAbortedGame(after),
          finishedAt: new Date(fromSpecSeconds(endedAt)).toISOString(),
          // An arena's game: the players' histories mark it with the event's name.
          ...(next.arenaId ? { arenaId: next.arenaId } : {}),
        },
        at(),
      ),
    );
  }

  if (hasLastState(change)) snapshot(EventTypes.roomUpdated, EventIds.roomUpdated(roomId, next.version));

  if (deleted) {
    events.push(
      makeEvent(
        EventTypes.roomDeleted,
        EventIds.roomDeleted(roomId),
        {
          roomId,
          version: deleted.version,
          reason: deleted.reason,
          playerIds: prev.players.map((p) => p.id),
        },
        at(),
      ),
    );
  }
  return events;
}

/** Whether the change leaves a state to show: any change but a deletion with nothing changed before it. */
export const hasLastState = ({ next, deleted }: Transition): boolean =>
  !deleted || deleted.version > next.version;

type GameResult =
  | Pick<GameWon, 'draw' | 'winner' | 'loser' | 'endReason'>
  | Pick<GameDrawn, 'draw' | 'winner' | 'loser' | 'endReason'>;

/** How a finished game ended, as game.finished says it: a winner and a loser, or a draw. */
function resultOf(room: RoomRecord, state: GameState): GameResult | null {
  const { winner, endReason } = state;
  if (endReason === 'moveLimit') return { draw: true, winner: null, loser: null, endReason };
  if (!winner || !endReason) return null;
  const loser = otherSeat(winner);
  return {
    draw: false,
    winner: { ...personAt(room, winner), seat: winner },
    loser: { ...personAt(room, loser), seat: loser },
    endReason,
  };
}
