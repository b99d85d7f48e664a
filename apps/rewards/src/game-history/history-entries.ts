import { type GameFinished, isObject, type PlayedGame, type PlayedGameDetail } from '@oasis198/contracts';
import {
  isAiPlayerId,
  isAiSeed,
  isPick,
  isSeat,
  MOVE_LIMIT,
  MOVE_OPTIONS,
  type MoveRecord,
  SEATS,
} from '@oasis198/game-rules';
import { isId, malformed } from '../player-events/dto/events';
import type { PlayerGameResult, StoredPlayerGame } from './game-history.repository';

const hexOrNull = (value: unknown): string | null => (isAiSeed(value) ? value : null);

/**
 * Each person's side of a finished game (a parsed game.finished), for their history: the AI
 * (`ai:<roomId>`) has no history, and is its opponent's opponent like anyone else.
 */
export function historyResults(game: GameFinished): PlayerGameResult[] {
  const finishedAt = new Date(game.finishedAt);
  if (Number.isNaN(finishedAt.getTime()) || !isId(game.roomId) || !Number.isInteger(game.moves)) {
    throw malformed('game.finished');
  }
  // The moves, when the event carries them (events written before it was added do not).
  const moveList = Array.isArray(game.moveList) ? movesOf(game.moveList) : null;
  const bySeat = { player1: game.player1, player2: game.player2 };
  return SEATS.filter((seat) => !isAiPlayerId(bySeat[seat].id)).map((seat) => {
    const player = bySeat[seat];
    const opponent = bySeat[seat === 'player1' ? 'player2' : 'player1'];
    return {
      playerId: player.id,
      gameId: game.gameId,
      roomId: game.roomId,
      finishedAt,
      seat,
      opponent: { id: opponent.id, name: opponent.name },
      result: game.draw ? 'draw' : game.winner.id === player.id ? 'won' : 'lost',
      endReason: game.endReason,
      moves: game.moves,
      duration: game.duration,
      aiCommit: hexOrNull(game.aiCommit),
      aiSeed: hexOrNull(game.aiSeed),
      moveList,
    };
  });
}

function movesOf(list: readonly unknown[]): MoveRecord[] {
  if (list.length > MOVE_LIMIT) throw malformed('game.finished');
  return list.map(toMoveRecord);
}

/** A move as the engine records it, and nothing else of whatever the event carried. */
function toMoveRecord(value: unknown): MoveRecord {
  if (
    !isObject(value) ||
    !isSeat(value['player']) ||
    !isPick(value['number']) ||
    !(MOVE_OPTIONS as readonly unknown[]).includes(value['option']) ||
    !isPick(value['aiNumber']) ||
    typeof value['total'] !== 'number' ||
    typeof value['at'] !== 'number'
  ) {
    throw malformed('game.finished');
  }
  const { player, number, option, aiNumber, total, at } = value as unknown as MoveRecord;
  return { player, number, option, aiNumber, total, at };
}

/** An entry as GET /api/rewards/{userId}/games lists it. */
export function toPlayedGame(game: StoredPlayerGame): PlayedGame {
  return {
    gameId: game.gameId,
    roomId: game.roomId ?? '',
    finishedAt: game.finishedAt.toISOString(),
    seat: game.seat ?? 'player1',
    opponent: game.opponent ?? { id: '', name: '' },
    result: game.result ?? 'draw',
    endReason: game.endReason ?? 'reached198',
    moves: game.moves ?? 0,
    duration: game.duration ?? 0,
    aiCommit: game.aiCommit ?? null,
    aiSeed: game.aiSeed ?? null,
    verifiable: game.verifiable === true,
  };
}

/** An entry with its moves, to replay it. */
export function toPlayedGameDetail(game: StoredPlayerGame): PlayedGameDetail {
  return {
    ...toPlayedGame(game),
    moveList: game.moveList ? (JSON.parse(game.moveList) as MoveRecord[]) : null,
  };
}
