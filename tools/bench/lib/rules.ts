// The game rules the server applies (libs/game-rules, TypeScript), loaded from source through
// @swc-node/register, so the bots and the floor use exactly the engine the rooms service uses.
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as GameRules from '@oasis198/game-rules';
import { ROOT } from '../../scripts/lib/workspace.ts';

const require = createRequire(path.join(ROOT, 'package.json'));
// The base tsconfig's paths resolve @oasis198/* to the libraries' sources (contracts imports the rules).
process.env.SWC_NODE_PROJECT ??= path.join(ROOT, 'tsconfig.base.json');
require('@swc-node/register');

export const rules: typeof GameRules = require(path.join(ROOT, 'libs', 'game-rules', 'src', 'index.ts'));

/**
 * A legal move for the player to move: an Oasis option the rules let them use now (offered at
 * the total, uses left) with probability 0.35, else plain; the number 1..9, or "random" (drawn by
 * the server) with probability 0.1.
 */
export function chooseMove(whosTurn: GameRules.BotView, seat: GameRules.Seat): GameRules.MoveIntent {
  const counts = whosTurn.helpOasis[seat === 'player1' ? 'oasis1' : 'oasis2'];
  const usable = rules.usableOptions(whosTurn.currentNumber, counts);
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;
  const option = usable.length > 0 && Math.random() < 0.35 ? pick(usable) : 'plain';
  const number = Math.random() < 0.1 ? ('random' as const) : 1 + Math.floor(Math.random() * 9);
  return { number, option };
}
