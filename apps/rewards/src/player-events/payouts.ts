import type { GameFinished } from '@oasis198/contracts';
import { BLITZ_DURATION, type ChampionTitle, rewardFor } from '@oasis198/game-rules';
import type { Credit } from '../rewards/rewards.repository';

/**
 * What a finished game pays (DECISIONS.md "Rewards" and "Fair play"): both players one played
 * game; the winner 25 points and 10 coins (and the blitz title in a 14-second room); the loser 5
 * and 1, or nothing after a timeout or leaving; each player of a draw (the move limit) nothing
 * and no title.
 */
export function payoutsFor(game: GameFinished): [Credit, Credit] {
  if (game.draw) {
    const draw = (player: { id: string; name: string }): Credit => ({
      playerId: player.id,
      playerName: player.name,
      ...rewardFor('draw', game.endReason),
      titles: [],
    });
    return [draw(game.player1), draw(game.player2)];
  }
  const win = rewardFor('win', game.endReason);
  const loss = rewardFor('loss', game.endReason);
  const winnerTitles: ChampionTitle[] = game.duration === BLITZ_DURATION ? ['blitzWinner'] : [];
  return [
    { playerId: game.winner.id, playerName: game.winner.name, ...win, titles: winnerTitles },
    { playerId: game.loser.id, playerName: game.loser.name, ...loss, titles: [] },
  ];
}
