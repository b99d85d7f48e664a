import {
  arenaEventName,
  eventOfArena,
  type GameFinished,
  isAbortedFinish,
  type PlayedGame,
  type PlayedGameDetail,
} from '@oasis198/contracts';
import { isAiPlayerId, type MoveRecord, SEATS } from '@oasis198/game-rules';
import type { PlayerGameResult, StoredPlayerGame } from './game-history.repository';

/**
 * Each person's side of a finished game (a parsed game.finished, whose schema already judged its
 * dates, counts and moves), for their history: the AI (`ai:<roomId>`) has no history, and is its
 * opponent's opponent like anyone else.
 */
export function historyResults(game: GameFinished): PlayerGameResult[] {
  const finishedAt = new Date(game.finishedAt);
  // The moves, when the event carries them (events written before it was added do not).
  const moveList = game.moveList ?? null;
  const bySeat = { player1: game.player1, player2: game.player2 };
  // An aborted game is listed as such for both, with why it ended: it has no winner or loser.
  const aborted = isAbortedFinish(game);
  // An arena's game is marked with its event's name.
  const event = game.arenaId ? arenaEventName(eventOfArena(game.arenaId)) : null;
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
      result: aborted ? 'aborted' : game.draw ? 'draw' : game.winner.id === player.id ? 'won' : 'lost',
      endReason: game.endReason,
      moves: game.moves,
      duration: game.duration,
      aiCommit: game.aiCommit,
      aiSeed: game.aiSeed,
      event,
      moveList,
    };
  });
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
    event: game.event ?? null,
  };
}

/** An entry with its moves, to replay it. */
export function toPlayedGameDetail(game: StoredPlayerGame): PlayedGameDetail {
  return {
    ...toPlayedGame(game),
    moveList: game.moveList ? (JSON.parse(game.moveList) as MoveRecord[]) : null,
  };
}
