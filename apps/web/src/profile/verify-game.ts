import type { PlayedGameDetail } from '@oasis198/contracts';
import {
  isAbortedGame,
  isAiSeed,
  MOVE_LIMIT,
  ruleProblems,
  verifyAiNumbers,
  WINNING_TOTAL,
} from '@oasis198/game-rules';

/** What Verify found. */
export type GameCheck =
  | { kind: 'unverifiable'; reason: 'no-seed' | 'not-recorded' }
  | {
      kind: 'checked';
      /** The seed hashes to the commitment, and gives every move's AI number (DECISIONS "Fair play"). */
      aiValid: boolean;
      /** Every move follows the rules, and the replay ends as the record says. */
      rulesValid: boolean;
      /** What does not check out, one line each. */
      problems: string[];
      replayed: number;
    };

/**
 * Replays a finished game in the browser with the engine the server plays by (libs/game-rules):
 * the commitment and every AI number (verifyAiNumbers, what the game-over screen checks), every
 * move's legality and total (ruleProblems), and that the replay ends as the history says (its move
 * count, and who reached 198 or that the move limit was hit).
 */
export function checkPlayedGame(game: PlayedGameDetail): GameCheck {
  if (!game.aiSeed || !game.aiCommit) return { kind: 'unverifiable', reason: 'no-seed' };
  if (!game.moveList) return { kind: 'unverifiable', reason: 'not-recorded' };
  const moves = game.moveList;
  const ai = verifyAiNumbers(game.aiSeed, game.aiCommit, moves);
  // Without a well-formed seed the matches cannot be replayed, so the rules cannot pass.
  const seeded = isAiSeed(game.aiSeed);
  const rules = [...(seeded ? ruleProblems(game.aiSeed, moves) : []), ...endProblems(game, moves)];
  return {
    kind: 'checked',
    aiValid: ai.valid,
    rulesValid: seeded && rules.length === 0,
    problems: [...ai.problems, ...rules],
    replayed: moves.length,
  };
}

function endProblems(game: PlayedGameDetail, moves: NonNullable<PlayedGameDetail['moveList']>): string[] {
  const problems: string[] = [];
  if (moves.length !== game.moves) {
    problems.push(`the history says ${game.moves} moves, the replay has ${moves.length}`);
  }
  const last = moves.at(-1);
  if (game.result === 'aborted' && !isAbortedGame({ gameOver: true, endReason: game.endReason, moves })) {
    problems.push('the game is listed as aborted, but both players moved');
  }
  if (game.endReason === 'reached198') {
    if (!last || last.total < WINNING_TOTAL) problems.push(`the last move does not reach ${WINNING_TOTAL}`);
    else if ((last.player === game.seat) !== (game.result === 'won')) {
      problems.push(`the result (${game.result}) is not who reached ${WINNING_TOTAL}`);
    }
  } else if (game.endReason === 'moveLimit' && moves.length !== MOVE_LIMIT) {
    problems.push(`a draw by the move limit needs ${MOVE_LIMIT} moves, the replay has ${moves.length}`);
  }
  return problems;
}
