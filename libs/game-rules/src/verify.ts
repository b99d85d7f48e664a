import { aiCommitOf, aiNumber, isAiSeed } from './ai';
import { MOVE_LIMIT, WINNING_TOTAL } from './constants';
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

const SEED_PROBLEM = 'the seed is not 64 lowercase hex characters';
const COMMIT_PROBLEM = 'the seed does not match the commitment';

/**
 * Checks a finished game's AI numbers (DECISIONS.md "Fair play"): the revealed seed must hash to
 * the commitment published when the game started, and every move's AI number must be the one
 * the seed gives for its index. This is what the game-over screen checks in the browser.
 */
export function verifyAiNumbers(
  aiSeed: string,
  aiCommit: string,
  moves: readonly MoveRecord[],
): VerifyReport {
  if (!isAiSeed(aiSeed)) return { valid: false, problems: [SEED_PROBLEM] };
  const problems: string[] = [];
  if (aiCommitOf(aiSeed) !== aiCommit) problems.push(COMMIT_PROBLEM);
  moves.forEach((move, index) => {
    const expected = aiNumber(aiSeed, index);
    if (move.aiNumber !== expected)
      problems.push(`move ${index}: AI number ${move.aiNumber}, expected ${expected}`);
  });
  return { valid: problems.length === 0, problems };
}

/**
 * Replays a finished game from its revealed seed, its commitment and its moves, and checks the
 * commitment and every AI number (verifyAiNumbers), every pick range, the turn order (player 1
 * first, then alternating), every option (offered at the total before the move, with a use or
 * matched credit left, counted by the match rule), every running total, and that no move follows
 * a win or the move limit. Anyone can run it once a game is over.
 */
export function verifyGame(aiSeed: string, aiCommit: string, moves: readonly MoveRecord[]): VerifyReport {
  const ai = verifyAiNumbers(aiSeed, aiCommit, moves);
  // Without a well-formed seed no match, and so no option count, can be replayed.
  if (!isAiSeed(aiSeed)) return ai;
  const problems = [...ai.problems, ...ruleProblems(aiSeed, moves)];
  return { valid: problems.length === 0, problems };
}

/**
 * The rules alone (who moves, picks, options offered and left, totals), replayed with the AI
 * numbers the seed gives: what verifyGame adds to verifyAiNumbers. The seed must be well-formed.
 */
export function ruleProblems(aiSeed: string, moves: readonly MoveRecord[]): string[] {
  const problems: string[] = [];
  let total = 0;
  const oasis = { oasis1: freshOasis(), oasis2: freshOasis() };
  moves.forEach((move, index) => {
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
    else if (index >= MOVE_LIMIT) problems.push(`move ${index}: made after the move limit of ${MOVE_LIMIT}`);
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
      // The match rule counts the AI number the seed gives, whatever the record claims.
      oasis[key] = bookkeep(oasis[key], move.option, move.number === aiNumber(aiSeed, index));
    }
    total = Math.max(0, total + optionEffect(move.option, move.number));
    if (move.total !== total) problems.push(`move ${index}: total ${move.total}, expected ${total}`);
  });
  return problems;
}
