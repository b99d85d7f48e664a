// The game rules the server applies (libs/game-rules, TypeScript), loaded from source through
// @swc-node/register, so the bots and the floor use exactly the engine the rooms service uses.
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../../scripts/lib/workspace.mjs';

const require = createRequire(path.join(ROOT, 'package.json'));
require('@swc-node/register');

/** @type {typeof import('../../../libs/game-rules/src/index')} */
export const rules = require(path.join(ROOT, 'libs', 'game-rules', 'src', 'index.ts'));

/**
 * A legal move for the player to move: an Oasis option the rules let them use now (offered at
 * the total, uses left) with probability `optionShare`, else plain; the number 1..9, or "random"
 * (drawn by the server) with probability `randomShare`.
 */
export function chooseMove(
  whosTurn,
  seat,
  { optionShare = 0.35, randomShare = 0.1, random = Math.random } = {},
) {
  const counts = whosTurn.helpOasis[seat === 'player1' ? 'oasis1' : 'oasis2'];
  const usable = rules.usableOptions(whosTurn.currentNumber, counts);
  const option =
    usable.length > 0 && random() < optionShare ? usable[Math.floor(random() * usable.length)] : 'plain';
  const number = random() < randomShare ? 'random' : 1 + Math.floor(random() * 9);
  return { number, option };
}
