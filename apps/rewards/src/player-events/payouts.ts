import { type GameFinished, isAbortedFinish, type Person } from '@oasis198/contracts';
import { BLITZ_DURATION, type ChampionTitle, isAiPlayerId, NO_REWARD, rewardFor } from '@oasis198/game-rules';
import type { Credit } from '../rewards/rewards.repository';

/**
 * What a finished game pays (DECISIONS.md "Rewards", "Fair play" and "Aborted games"): both players one
 * played game; the winner 25 points, 10 coins and a win (and the blitz title in a 14-second room);
 * the loser 5 and 1, or nothing after a timeout or leaving; each player of a draw (the move limit)
 * nothing and no title. A game against the AI pays its human one played game and nothing else,
 * so it cannot be farmed, and the AI (`ai:<roomId>`, no account) gets no record at all. An aborted
 * game (a player never moved) pays nobody anything, not even the played game, so an instant
 * forfeit between two accounts earns nothing.
 */
export function payoutsFor(game: GameFinished): Credit[] {
  if (isAbortedFinish(game)) return [];
  const { gameId } = game;
  const humans = [game.player1, game.player2].filter((player) => !isAiPlayerId(player.id));
  if (humans.length < 2) return humans.map((player) => played(gameId, player));
  if (game.draw) {
    const paid = rewardFor('draw', game.endReason);
    return [played(gameId, game.player1, paid), played(gameId, game.player2, paid)];
  }
  const win = rewardFor('win', game.endReason);
  const loss = rewardFor('loss', game.endReason);
  const winnerTitles: ChampionTitle[] = game.duration === BLITZ_DURATION ? ['blitzWinner'] : [];
  return [
    { playerId: game.winner.id, gameId, playerName: game.winner.name, ...win, wins: 1, titles: winnerTitles },
    { playerId: game.loser.id, gameId, playerName: game.loser.name, ...loss, wins: 0, titles: [] },
  ];
}

/** A played game and no win: a draw's pay, or nothing at all (a game against the AI). */
function played(gameId: string, player: Person, paid: { points: number; coins: number } = NO_REWARD): Credit {
  return { playerId: player.id, gameId, playerName: player.name, ...paid, wins: 0, titles: [] };
}
