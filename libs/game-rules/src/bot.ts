import { PICK_MAX, PICK_MIN, WINNING_TOTAL } from './constants';
import { type MoveIntent, oasisKeyOf, otherSeat, type Seat } from './game';
import { type MoveOption, type OasisCounts, optionEffect, usableOptions } from './oasis';

/**
 * The AI opponent that takes an empty seat (docs/adr/0004-play-now-and-the-ai-opponent.md). It is
 * not an account: its id names the room it plays in, it has no reward record, no membership and
 * no limits. It plays through the same rules as anyone, deciding only from what every client sees.
 */
export const AI_PLAYER_NAME = 'AI';
/** A room created with the AI option gets the AI as player 2 when nobody joined within this long. */
export const AI_JOIN_AFTER_SECONDS = 30;
/** Bounds of the AI's think time per move, so it plays at a human pace (well inside the 14 s turn). */
export const AI_THINK_MS = { min: 1200, max: 3600 } as const;

const AI_PREFIX = 'ai:';

export const aiPlayerId = (roomId: string): string => `${AI_PREFIX}${roomId}`;
export const isAiPlayerId = (id: unknown): boolean => typeof id === 'string' && id.startsWith(AI_PREFIX);

/**
 * How long the AI thinks before its move: the same for the same turn wherever it is computed (the
 * game timer arms the move with it, rooms checks it), and spread like a person's, 1.2 to 3.6 s.
 */
export function aiThinkMs(roomId: string, gameNumber: number, moveIndex: number): number {
  // FNV-1a over the turn's name: stable, cheap and evenly spread; nothing secret goes in.
  let hash = 0x811c9dc5;
  for (const char of `${roomId}:${gameNumber}:${moveIndex}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return AI_THINK_MS.min + (hash % (AI_THINK_MS.max - AI_THINK_MS.min + 1));
}

/** What the AI decides from: public parts of a game, as every client sees them. */
export interface BotView {
  currentNumber: number;
  helpOasis: { oasis1: OasisCounts; oasis2: OasisCounts };
}

interface Candidate extends MoveIntent {
  number: number;
  total: number;
}

/** Every move the seat may make now, with the total it leads to. */
function candidates(view: BotView, seat: Seat): Candidate[] {
  const options: MoveOption[] = [
    'plain',
    ...usableOptions(view.currentNumber, view.helpOasis[oasisKeyOf(seat)]),
  ];
  const moves: Candidate[] = [];
  for (const option of options) {
    for (let number = PICK_MIN; number <= PICK_MAX; number++) {
      moves.push({ number, option, total: Math.max(0, view.currentNumber + optionEffect(option, number)) });
    }
  }
  return moves;
}

/** The most the seat can add in one move at this total with the options it has left. */
function reach(total: number, counts: OasisCounts): number {
  const options: MoveOption[] = ['plain', ...usableOptions(total, counts)];
  return Math.max(...options.map((option) => optionEffect(option, PICK_MAX)));
}

/**
 * The AI's move. In order of preference:
 * 1. a move that reaches 198 (plain if it can, so its options are not spent for nothing);
 * 2. the largest total the opponent cannot finish from on their next move, spending an option
 *    only when it gets further than a plain pick does;
 * 3. when every move leaves the opponent a win, the one that leaves them the farthest from 198
 *    (the negative option pushes the total back).
 * `pick` breaks ties between equal moves (the service passes a random source), so it is not
 * predictable move for move.
 */
export function chooseBotMove(view: BotView, seat: Seat, pick: () => number = Math.random): MoveIntent {
  const moves = candidates(view, seat);
  const opponent = view.helpOasis[oasisKeyOf(otherSeat(seat))];
  const choose = (list: Candidate[]): MoveIntent => {
    const chosen = list[Math.min(list.length - 1, Math.floor(pick() * list.length))] as Candidate;
    return { number: chosen.number, option: chosen.option };
  };
  const best = (list: Candidate[], score: (c: Candidate) => number): Candidate[] => {
    const top = Math.max(...list.map(score));
    return list.filter((c) => score(c) === top);
  };

  const winning = moves.filter((c) => c.total >= WINNING_TOTAL);
  if (winning.length) {
    const plain = winning.filter((c) => c.option === 'plain');
    return choose(plain.length ? plain : winning);
  }
  const safe = moves.filter((c) => WINNING_TOTAL - c.total > reach(c.total, opponent));
  if (safe.length) {
    // Prefer plain among moves of the same total: an option is worth spending only for distance.
    const furthest = best(safe, (c) => c.total);
    const plain = furthest.filter((c) => c.option === 'plain');
    return choose(plain.length ? plain : furthest);
  }
  return choose(best(moves, (c) => WINNING_TOTAL - c.total - reach(c.total, opponent)));
}
