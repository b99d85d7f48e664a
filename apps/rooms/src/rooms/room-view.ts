import type { RoomView, WhosTurnView } from '@oasis198/contracts';
import { toSpecSeconds } from '@oasis198/game-rules';
import type { RoomRecord } from './room.schema';

/** When the AI takes the empty seat (SPEC seconds), while the room waits for one; else null. */
export function aiJoinsAt(
  room: Pick<RoomRecord, 'aiJoinAfter' | 'waitingSince' | 'players' | 'whosTurn'>,
): number | null {
  if (!room.aiJoinAfter || !room.waitingSince || room.players.length !== 1 || room.whosTurn.gameStarted)
    return null;
  return toSpecSeconds(new Date(room.waitingSince).getTime() + room.aiJoinAfter * 1000);
}

/**
 * What leaves the service. Built field by field, so nothing stored (the passcode, the outbox, a
 * field added later) can slip out: the passcode becomes `hasPassCode`, and the game's secrets
 * (specialRandom and the AI seed) stay null until the game is over. The seed's commitment is
 * public from the game's start (DECISIONS.md "Fair play").
 */
export function toRoomView(room: RoomRecord, nowMs: number): RoomView {
  const s = room.whosTurn;
  // `?? null`: a game stored before fair play has no seed and no commitment.
  const aiCommit = s.aiCommit ?? null;
  const aiSeed = s.gameOver ? (s.aiSeed ?? null) : null;
  const whosTurn: WhosTurnView = {
    gameStarted: s.gameStarted,
    gameOver: s.gameOver,
    currentNumber: s.currentNumber,
    turnStart: s.turnStart,
    specialRandom: s.gameOver ? s.specialRandom : null,
    aiSeed,
    aiCommit,
    player1: { turn: s.player1.turn, restart: s.player1.restart },
    player2: { turn: s.player2.turn, restart: s.player2.restart },
    helpOasis: { oasis1: { ...s.helpOasis.oasis1 }, oasis2: { ...s.helpOasis.oasis2 } },
    moves: s.moves.map((m) => ({
      player: m.player,
      number: m.number,
      option: m.option,
      aiNumber: m.aiNumber,
      total: m.total,
      at: m.at,
    })),
    winner: s.winner,
    endReason: s.endReason,
    deadline: s.deadline,
    endedAt: s.endedAt,
    gameNumber: s.gameNumber,
  };
  return {
    _id: room._id,
    name: room.name,
    roomNumber: room.roomNumber,
    gameType: room.gameType,
    createdBy: { id: room.createdBy.id, name: room.createdBy.name },
    duration: room.duration,
    hasPassCode: room.passCode !== '',
    players: room.players.map((p) => ({ id: p.id, name: p.name })),
    gameStarted: s.gameStarted,
    gameOver: s.gameOver,
    aiCommit,
    aiSeed,
    whosTurn,
    version: room.version,
    createdAt: new Date(room.createdAt).toISOString(),
    serverNow: toSpecSeconds(nowMs),
    waitingSince: room.waitingSince ? toSpecSeconds(new Date(room.waitingSince).getTime()) : null,
    aiOpponent: !!room.aiJoinAfter,
    aiJoinsAt: aiJoinsAt(room),
  };
}
