import { aiNumber } from './ai';
import { WINNING_TOTAL } from './constants';
import { isPick, isSeat, oasisKeyOf, type MoveRecord } from './game';
import {
  bookkeep,
  freshOasis,
  hasUses,
  MOVE_OPTIONS,
  offeredOptions,
  optionEffect,
  type MoveOption,
} from './oasis';

export interface VerifyReport {
  valid: boolean;
  /** One line per move that does not follow the rules, naming the move by its 0-based index. */
  problems: string[];
}

const isMoveOption = (value: unknown): value is MoveOption =>
  (MOVE_OPTIONS as readonly unknown[]).includes(value);

/**
 * Replays a finished game from its revealed specialRandom and its moves, and checks every AI
 * pick, every pick range, the turn order (player 1 first, then alternating), every option (offered
 * at the total before the move, with a use or matched credit left, counted by the match rule) and
 * every running total. Anyone can run it once a game is over.
 */
export function verifyGame(specialRandom: number, moves: readonly MoveRecord[]): VerifyReport {
  const problems: string[] = [];
  let total = 0;
  const oasis = { oasis1: freshOasis(), oasis2: freshOasis() };
  moves.forEach((move, index) => {
    const expectedAi = aiNumber(specialRandom, index);
    if (move.aiNumber !== expectedAi) {
      problems.push(`move ${index}: AI number ${move.aiNumber}, expected ${expectedAi}`);
    }
    if (!isPick(move.number)) problems.push(`move ${index}: pick ${move.number} is not 1..9`);
    if (!isSeat(move.player)) {
      problems.push(`move ${index}: ${String(move.player)} is not a seat`);
    } else if (index === 0 && move.player !== 'player1') {
      problems.push(`move ${index}: ${move.player} moved first`);
    }
    if (index > 0 && move.player === moves[index - 1]?.player) {
      problems.push(`move ${index}: ${move.player} moved twice in a row`);
    }
    if (index > 0 && total >= WINNING_TOTAL) problems.push(`move ${index}: made after the game was won`);
    if (!isMoveOption(move.option)) {
      problems.push(`move ${index}: option ${String(move.option)} is unknown`);
      total = move.total;
      return;
    }
    if (isSeat(move.player)) {
      const key = oasisKeyOf(move.player);
      if (move.option !== 'plain') {
        if (!offeredOptions(total).includes(move.option)) {
          problems.push(`move ${index}: ${move.option} is not offered at a total of ${total}`);
        } else if (!hasUses(oasis[key], move.option)) {
          problems.push(`move ${index}: ${move.player} has no ${move.option} left`);
        }
      }
      oasis[key] = bookkeep(oasis[key], move.option, move.number === expectedAi);
    }
    total = Math.max(0, total + optionEffect(move.option, move.number));
    if (move.total !== total) problems.push(`move ${index}: total ${move.total}, expected ${total}`);
  });
  return { valid: problems.length === 0, problems };
}
