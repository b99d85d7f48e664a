import { aiNumber } from './ai';
import {
  applyMove,
  initialGameState,
  oasisKeyOf,
  seatToMove,
  startGame,
  type GameState,
  type MoveRecord,
  type Seat,
} from './game';
import { usableOptions, type MoveOption } from './oasis';
import { fromSpecSeconds } from './time';
import { verifyGame } from './verify';

const SR = 271_828;

/** A real game: every option used where the engine allows it, matches included, played to 198. */
function playRealGame(): GameState {
  let state = startGame(initialGameState(), { nowMs: Date.UTC(2025, 0, 1), duration: 32, specialRandom: SR });
  let step = 0;
  while (!state.gameOver) {
    const seat = seatToMove(state) as Seat;
    const usable = usableOptions(state.currentNumber, state.helpOasis[oasisKeyOf(seat)]);
    const option: MoveOption =
      step % 3 === 0 || usable.length === 0 ? 'plain' : (usable[step % usable.length] as MoveOption);
    // Every fourth move matches the AI.
    const ai = aiNumber(SR, state.moves.length);
    const number = step % 4 === 0 ? ai : ((step * 5) % 9) + 1;
    const result = applyMove(
      state,
      seat,
      { number, option },
      { nowMs: fromSpecSeconds(state.turnStart) + 1000, duration: 32 },
    );
    if (!result.ok) throw new Error(result.rule);
    state = result.state;
    step++;
  }
  return state;
}

const game = playRealGame();
const moveAt = (index: number): MoveRecord => {
  const found = game.moves[index];
  if (!found) throw new Error(`no move ${index}`);
  return found;
};
const tamper = (index: number, change: Partial<MoveRecord>): MoveRecord[] =>
  game.moves.map((m, i) => (i === index ? { ...m, ...change } : m));

describe('verifyGame', () => {
  it('accepts a real finished game, options and matches included', () => {
    expect(game.moves.length).toBeGreaterThan(10);
    expect(new Set(game.moves.map((m) => m.option)).size).toBeGreaterThanOrEqual(5);
    expect(game.moves.some((m) => m.number === m.aiNumber)).toBe(true);
    expect(verifyGame(SR, game.moves)).toEqual({ valid: true, problems: [] });
  });

  it('accepts every prefix of a real game and an empty game', () => {
    for (let n = 0; n <= game.moves.length; n++)
      expect(verifyGame(SR, game.moves.slice(0, n)).valid).toBe(true);
  });

  it('refuses the game under another specialRandom', () => {
    expect(verifyGame(SR + 1, game.moves).valid).toBe(false);
  });

  it('names the move with a tampered AI number', () => {
    const index = 5;
    const moves = tamper(index, { aiNumber: (moveAt(index).aiNumber % 9) + 1 });
    const report = verifyGame(SR, moves);
    expect(report.valid).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/^move 5: AI number/)]);
  });

  it('names the move with a tampered total', () => {
    const report = verifyGame(SR, tamper(7, { total: moveAt(7).total + 1 }));
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/^move 7: total/);
  });

  it('names the move with a tampered pick', () => {
    const original = moveAt(3);
    const report = verifyGame(SR, tamper(3, { number: (original.number % 9) + 1 }));
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/^move 3: /);
    const outOfRange = verifyGame(SR, tamper(3, { number: 12 }));
    expect(outOfRange.problems).toContain('move 3: pick 12 is not 1..9');
  });

  it('names a player moving twice in a row', () => {
    const report = verifyGame(SR, tamper(4, { player: moveAt(3).player }));
    expect(report.valid).toBe(false);
    expect(report.problems).toContain(`move 4: ${moveAt(3).player} moved twice in a row`);
  });

  it('names a first move by player 2 and a player that is not a seat', () => {
    const first: MoveRecord = {
      player: 'player2',
      number: 5,
      option: 'plain',
      aiNumber: aiNumber(SR, 0),
      total: 5,
      at: 0,
    };
    expect(verifyGame(SR, [first]).problems).toEqual(['move 0: player2 moved first']);
    expect(verifyGame(SR, [{ ...first, player: 'player9' as Seat }]).problems).toEqual([
      'move 0: player9 is not a seat',
    ]);
  });

  it('names a move made after the game was won', () => {
    const last = moveAt(game.moves.length - 1);
    const extra: MoveRecord = {
      player: last.player === 'player1' ? 'player2' : 'player1',
      number: 1,
      option: 'plain',
      aiNumber: aiNumber(SR, game.moves.length),
      total: last.total + 1,
      at: last.at + 1,
    };
    expect(verifyGame(SR, [...game.moves, extra]).problems).toEqual([
      `move ${game.moves.length}: made after the game was won`,
    ]);
  });

  it('names an option not offered at the total before the move', () => {
    const moves: MoveRecord[] = [
      { player: 'player1', number: 4, option: 'minus', aiNumber: aiNumber(SR, 0), total: 0, at: 0 },
    ];
    expect(verifyGame(SR, moves).problems).toEqual(['move 0: minus is not offered at a total of 0']);
  });

  it('names an option used more often than its uses and matched credit allow', () => {
    const moves: MoveRecord[] = [];
    let total = 0;
    for (let i = 0; i < 8; i++) {
      const ai = aiNumber(SR, i);
      const number = (ai % 9) + 1; // never matches
      const option: MoveOption = i % 2 === 0 ? 'bonus' : 'plain';
      total += option === 'bonus' ? number + 1 : number;
      moves.push({ player: i % 2 === 0 ? 'player1' : 'player2', number, option, aiNumber: ai, total, at: i });
    }
    // player1 used bonus 4 times with 3 uses and no match.
    expect(verifyGame(SR, moves).problems).toEqual(['move 6: player1 has no bonus left']);
  });

  it('names an unknown option', () => {
    const moves: MoveRecord[] = [
      {
        player: 'player1',
        number: 4,
        option: 'triple' as MoveOption,
        aiNumber: aiNumber(SR, 0),
        total: 12,
        at: 0,
      },
    ];
    expect(verifyGame(SR, moves).problems).toEqual(['move 0: option triple is unknown']);
  });
});
