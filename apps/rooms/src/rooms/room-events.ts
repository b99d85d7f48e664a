import { EventIds, type EventEnvelope, EventTypes, gameIdOf } from '@oasis198/contracts';
import { fromSpecSeconds, otherSeat, toSpecSeconds } from '@oasis198/game-rules';
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

  if (after.gameOver && (newGame || !before.gameOver) && after.winner && after.endReason) {
    const loserSeat = otherSeat(after.winner);
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
          winner: { ...personAt(next, after.winner), seat: after.winner },
          loser: { ...personAt(next, loserSeat), seat: loserSeat },
          endReason: after.endReason,
          duration: next.duration,
          playedSeconds: Math.max(0, Math.round((endedAt - startedAt) * 1000) / 1000),
          specialRandom: after.specialRandom,
          moves: after.moves.length,
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
