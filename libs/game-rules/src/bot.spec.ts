import { AI_THINK_MS, aiPlayerId, aiThinkMs, type BotView, chooseBotMove, isAiPlayerId } from './bot';
import { WINNING_TOTAL } from './constants';
import {
  applyMove,
  initialGameState,
  seatToMove,
  startGame,
  type GameState,
  type MoveIntent,
  type Seat,
} from './game';
import { freshOasis, optionEffect, usableOptions, type OasisCounts } from './oasis';

const view = (currentNumber: number, own = freshOasis(), opponent = freshOasis()): BotView => ({
  currentNumber,
  helpOasis: { oasis1: own, oasis2: opponent },
});
const none: OasisCounts = { double: 0, extra: 0, minus: 0, added: 0, bonus: 0, matched: 0 };
const totalAfter = (v: BotView, move: MoveIntent) =>
  Math.max(0, v.currentNumber + optionEffect(move.option, move.number as number));

describe('the AI opponent', () => {
  it('is named by its room and recognised by its id', () => {
    expect(aiPlayerId('64b7f0a1c2d3e4f5a6b7c8d9')).toBe('ai:64b7f0a1c2d3e4f5a6b7c8d9');
    expect(isAiPlayerId('ai:64b7f0a1c2d3e4f5a6b7c8d9')).toBe(true);
    expect(isAiPlayerId('64b7f0a1c2d3e4f5a6b7c8d9')).toBe(false);
    expect(isAiPlayerId(undefined)).toBe(false);
  });

  it('thinks like a person, the same time for the same turn and different times for different turns', () => {
    const times = Array.from({ length: 200 }, (_, i) => aiThinkMs('room', 1, i));
    for (const ms of times) {
      expect(ms).toBeGreaterThanOrEqual(AI_THINK_MS.min);
      expect(ms).toBeLessThanOrEqual(AI_THINK_MS.max);
    }
    expect(aiThinkMs('room', 1, 7)).toBe(aiThinkMs('room', 1, 7));
    expect(new Set(times).size).toBeGreaterThan(50);
  });

  it('takes a win when one is there, with a plain pick when a plain pick reaches 198', () => {
    expect(chooseBotMove(view(190), 'player1', () => 0.99)).toEqual({ number: 9, option: 'plain' });
    expect(chooseBotMove(view(190), 'player1', () => 0)).toEqual({ number: 8, option: 'plain' });
  });

  it('spends an option to win when only an option reaches 198', () => {
    // At 180 the offered options are added (+4), bonus (+1) and minus: 9 + 4 + 180 = 193 < 198, so
    // from 186 only "added" wins: 186 + 9 + 4 = 199.
    const move = chooseBotMove(view(186), 'player1', () => 0);
    expect(totalAfter(view(186), move)).toBeGreaterThanOrEqual(WINNING_TOTAL);
    expect(move.option).toBe('added');
  });

  it('never leaves the opponent a win when a safe move exists', () => {
    for (let total = 0; total < WINNING_TOTAL; total++) {
      const v = view(total);
      const move = chooseBotMove(v, 'player1', () => 0.5);
      const after = totalAfter(v, move);
      if (after >= WINNING_TOTAL) continue;
      const opponentReach = Math.max(
        ...['plain' as const, ...usableOptions(after, v.helpOasis.oasis2)].map((o) => optionEffect(o, 9)),
      );
      // A safe move existed if some plain pick kept the total out of the opponent's reach.
      const anySafe = Array.from({ length: 9 }, (_, i) => total + i + 1).some(
        (t) =>
          WINNING_TOTAL - t >
          Math.max(
            ...['plain' as const, ...usableOptions(t, v.helpOasis.oasis2)].map((o) => optionEffect(o, 9)),
          ),
      );
      if (anySafe) expect(WINNING_TOTAL - after).toBeGreaterThan(opponentReach);
    }
  });

  it('pushes the total back with the negative option when every forward move hands over a win', () => {
    // At 188 with only minus left, every plain pick ends within the opponent's 9; minus 2 x 1 is
    // the smallest step back that is out of their reach.
    const move = chooseBotMove(view(188, { ...none, minus: 3 }, none), 'player1', () => 0);
    expect(move).toEqual({ number: 1, option: 'minus' });
  });

  it('when nothing is safe, leaves the opponent as far from a win as it can', () => {
    // At 188 with no options left every pick lands within the opponent's reach (13 with "added"),
    // and none reaches 198: it picks 1, the farthest from their win.
    expect(chooseBotMove(view(188, none, freshOasis()), 'player1', () => 0.7)).toEqual({
      number: 1,
      option: 'plain',
    });
  });

  it('only ever chooses moves the engine accepts, and plays a whole game to its end', () => {
    let state: GameState = startGame(initialGameState(), {
      duration: 32,
      nowMs: Date.UTC(2025, 0, 1),
      specialRandom: 123_456,
      aiSeed: 'ab'.repeat(32),
    });
    let nowMs = Date.UTC(2025, 0, 1);
    let seeded = 1;
    const random = () => ((seeded = (seeded * 16807) % 2147483647) - 1) / 2147483646;
    while (!state.gameOver) {
      nowMs += 1000;
      const seat = seatToMove(state) as Seat;
      const move = chooseBotMove(state, seat, random);
      const result = applyMove(state, seat, move, { duration: 32, nowMs });
      if (!result.ok) throw new Error(`refused ${JSON.stringify(move)}: ${result.message}`);
      state = result.state;
    }
    expect(state.endReason).toBe('reached198');
  });
});
