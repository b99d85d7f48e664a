import {
  AppError,
  type GameFinished,
  gameIdOf,
  type PlayedGame,
  type PlayedGameDetail,
} from '@oasis198/contracts';
import {
  fromSpecSeconds,
  isAiPlayerId,
  isAiSeed,
  isPick,
  isSeat,
  MOVE_LIMIT,
  MOVE_OPTIONS,
  type MoveRecord,
  SEATS,
} from '@oasis198/game-rules';
import type { PlayerGameMoves, PlayerGameResult, StoredPlayerGame } from './game-history.repository';

const malformed = (what: string) => new AppError('VALIDATION', `malformed ${what} event`);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 64;
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
    };
  });
}

/**
 * The moves of a finished game for each of its people, from a room.updated snapshot: only the
 * snapshot of a game that is over, with its seed revealed (the one event carrying the move list
 * and the seed together), gives any; every other snapshot (most of them: one per move) is
 * ignored at once.
 */
export function historyMoves(data: unknown): PlayerGameMoves[] {
  const room = isObject(data) ? data['room'] : undefined;
  if (!isObject(room) || room['gameOver'] !== true || !isAiSeed(room['aiSeed'])) return [];
  const state = room['whosTurn'];
  const players = room['players'];
  if (
    !isId(room['_id']) ||
    !isObject(state) ||
    !Number.isInteger(state['gameNumber']) ||
    typeof state['endedAt'] !== 'number' ||
    !Array.isArray(state['moves']) ||
    state['moves'].length > MOVE_LIMIT ||
    !Array.isArray(players)
  ) {
    throw malformed('room.updated');
  }
  const moves = state['moves'].map(toMoveRecord);
  const gameId = gameIdOf(room['_id'], state['gameNumber'] as number);
  const finishedAt = new Date(fromSpecSeconds(state['endedAt']));
  return players
    .map((player) => (isObject(player) ? player['id'] : undefined))
    .filter((id): id is string => isId(id) && !isAiPlayerId(id))
    .map((playerId) => ({ playerId, gameId, finishedAt, moves }));
}

/** A move as the engine records it, and nothing else of whatever the snapshot carried. */
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
    throw malformed('room.updated');
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
