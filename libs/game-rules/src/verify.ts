import { aiNumber } from './ai';
import { WINNING_TOTAL } from './constants';
import { isPick, type MoveRecord } from './game';
import { optionEffect } from './oasis';

export interface VerifyReport {
  valid: boolean;
  /** One line per move that does not follow the rules, naming the move by its 0-based index. */
  problems: string[];
}

/**
 * Replays a finished game from its revealed specialRandom and its moves, and checks every AI
 * pick, every pick range and every running total. Anyone can run it once a game is over.
 */
export function verifyGame(specialRandom: number, moves: readonly MoveRecord[]): VerifyReport {
  const problems: string[] = [];
  let total = 0;
  moves.forEach((move, index) => {
    const expectedAi = aiNumber(specialRandom, index);
    if (move.aiNumber !== expectedAi) {
      problems.push(`move ${index}: AI number ${move.aiNumber}, expected ${expectedAi}`);
    }
    if (!isPick(move.number)) problems.push(`move ${index}: pick ${move.number} is not 1..9`);
    if (index > 0 && move.player === moves[index - 1]?.player) {
      problems.push(`move ${index}: ${move.player} moved twice in a row`);
    }
    if (index > 0 && total >= WINNING_TOTAL) problems.push(`move ${index}: made after the game was won`);
    total = Math.max(0, total + optionEffect(move.option, move.number));
    if (move.total !== total) problems.push(`move ${index}: total ${move.total}, expected ${total}`);
  });
  return { valid: problems.length === 0, problems };
}
