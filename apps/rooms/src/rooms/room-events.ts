import {
  EventIds,
  type EventEnvelope,
  EventTypes,
  type GameDrawn,
  gameIdOf,
  type GameWon,
} from '@oasis198/contracts';
import { fromSpecSeconds, type GameState, otherSeat, toSpecSeconds } from '@oasis198/game-rules';
import { makeEvent } from '@oasis198/service-kit';
import type { RoomRecord } from './room.schema';
import { personAt, type Transition } from './room-transitions';
import { toRoomView } from './room-view';

/**
 * The events a change causes, derived from the room before and after it, in the order they
 * happened: game.started, move.made, game.finished, then the room.updated snapshot and, when the
 * room goes, room.deleted. Each gets its own millisecond of occurredAt, so the outbox (which
 * publishes in occurredAt order) keeps that order.
 */
export function eventsFor(prev: RoomRecord | null, change: Transition, nowMs: number): EventEnvelope[] {
  const { next, deleted } = change;
  const roomId = next._id;
  const events: EventEnvelope[] = [];
  const at = () => new Date(nowMs + events.length);

  if (!prev) {
    events.push(
      makeEvent(
        EventTypes.roomCreated,
        EventIds.roomCreated(roomId),
        { room: toRoomView(next, nowMs) },
        at(),
      ),
    );
    return events;
  }

  const before = prev.whosTurn;
  const after = next.whosTurn;
  const newGame = after.gameNumber !== before.gameNumber;
  const gameId = gameIdOf(roomId, after.gameNumber);

  if (newGame && after.gameStarted) {
    events.push(
      makeEvent(
        EventTypes.gameStarted,
        EventIds.gameStarted(gameId),
        {
          roomId,
          gameId,
          gameNumber: after.gameNumber,
          player1: personAt(next, 'player1'),
          player2: personAt(next, 'player2'),
          duration: next.duration,
          turnStart: after.turnStart,
          deadline: after.deadline ?? after.turnStart,
        },
        at(),
      ),
    );
  }

  const firstNew = newGame ? 0 : before.moves.length;
  for (let moveIndex = firstNew; moveIndex < after.moves.length; moveIndex++) {
    const move = after.moves[moveIndex];
    if (!move) continue;
    events.push(
      makeEvent(
        EventTypes.moveMade,
        EventIds.moveMade(gameId, moveIndex),
        { roomId, gameId, gameNumber: after.gameNumber, moveIndex, move, version: next.version },
        at(),
      ),
    );
  }

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
          finishedAt: new Date(fromSpecSeconds(endedAt)).toISOString(),
        },
        at(),
      ),
    );
  }

  const finalSnapshot = !deleted || deleted.version > next.version;
  if (finalSnapshot) {
    events.push(
      makeEvent(
        EventTypes.roomUpdated,
        EventIds.roomUpdated(roomId, next.version),
        { room: toRoomView(next, nowMs) },
        at(),
      ),
    );
  }

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
