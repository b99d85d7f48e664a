import { createHash } from 'node:crypto';
import { aiNumber } from './ai';
import { MOVE_LIMIT } from './constants';
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
import recorded from './testing/recorded-game.json';
import { verifyAiNumbers, verifyGame } from './verify';

const SR = 271_828;
const SEED = 'c0ffee'.repeat(10) + 'beef';
const OTHER_SEED = 'beef'.repeat(16);
/** The commitments, computed with node:crypto rather than the engine. */
const commitOf = (seedHex: string): string =>
  createHash('sha256').update(Buffer.from(seedHex, 'hex')).digest('hex');
const COMMIT = commitOf(SEED);

/** A real game: every option used where the engine allows it, matches included, played to 198. */
function playRealGame(): GameState {
  let state = startGame(initialGameState(), {
    nowMs: Date.UTC(2025, 0, 1),
    duration: 32,
    specialRandom: SR,
    aiSeed: SEED,
  });
  let step = 0;
  while (!state.gameOver) {
    const seat = seatToMove(state) as Seat;
    const usable = usableOptions(state.currentNumber, state.helpOasis[oasisKeyOf(seat)]);
    const option: MoveOption =
      step % 3 === 0 || usable.length === 0 ? 'plain' : (usable[step % usable.length] as MoveOption);
    // Every fourth move matches the AI.
    const ai = aiNumber(SEED, state.moves.length);
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
    expect(verifyGame(SEED, COMMIT, game.moves)).toEqual({ valid: true, problems: [] });
  });

  it('accepts a game recorded through the rooms service code', () => {
    const moves = recorded.moves as MoveRecord[];
    expect(verifyGame(recorded.aiSeed, recorded.aiCommit, moves)).toEqual({ valid: true, problems: [] });
    expect(moves.at(-1)?.total).toBe(recorded.currentNumber);
  });

  it('accepts every prefix of a real game and an empty game', () => {
    for (let n = 0; n <= game.moves.length; n++)
      expect(verifyGame(SEED, COMMIT, game.moves.slice(0, n)).valid).toBe(true);
  });

  it("refuses the game under another seed, even with that seed's own commitment", () => {
    const report = verifyGame(OTHER_SEED, commitOf(OTHER_SEED), game.moves);
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/^move \d+: AI number \d, expected \d$/);
  });

  it('refuses a seed that does not match the commitment, an empty game included', () => {
    for (const moves of [game.moves, []]) {
      const report = verifyGame(SEED, commitOf(OTHER_SEED), moves);
      expect(report.valid).toBe(false);
      expect(report.problems[0]).toBe('the seed does not match the commitment');
    }
    expect(verifyGame(SEED, COMMIT.toUpperCase(), []).valid).toBe(false);
    expect(verifyGame(SEED, COMMIT, [])).toEqual({ valid: true, problems: [] });
  });

  it('refuses a seed that is not 64 lowercase hex characters, without throwing', () => {
    for (const bad of ['', 'abc', SEED.toUpperCase(), `${SEED}00`]) {
      const report = verifyGame(bad, COMMIT, game.moves);
      expect(report.valid).toBe(false);
      expect(report.problems).toEqual(['the seed is not 64 lowercase hex characters']);
    }
  });

  it('names the move with a tampered AI number', () => {
    const index = 5;
    const moves = tamper(index, { aiNumber: (moveAt(index).aiNumber % 9) + 1 });
    const report = verifyGame(SEED, COMMIT, moves);
    expect(report.valid).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/^move 5: AI number/)]);
  });

  it('names the move with a tampered total', () => {
    const report = verifyGame(SEED, COMMIT, tamper(7, { total: moveAt(7).total + 1 }));
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/^move 7: total/);
  });

  it('names the move with a tampered pick', () => {
    const original = moveAt(3);
    const report = verifyGame(SEED, COMMIT, tamper(3, { number: (original.number % 9) + 1 }));
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatch(/^move 3: /);
    const outOfRange = verifyGame(SEED, COMMIT, tamper(3, { number: 12 }));
    expect(outOfRange.problems).toContain('move 3: pick 12 is not 1..9');
  });

  it('names a player moving twice in a row', () => {
    const report = verifyGame(SEED, COMMIT, tamper(4, { player: moveAt(3).player }));
    expect(report.valid).toBe(false);
    expect(report.problems).toContain(`move 4: ${moveAt(3).player} moved twice in a row`);
  });

  it('names a first move by player 2 and a player that is not a seat', () => {
    const first: MoveRecord = {
      player: 'player2',
      number: 5,
      option: 'plain',
      aiNumber: aiNumber(SEED, 0),
      total: 5,
      at: 0,
    };
    expect(verifyGame(SEED, COMMIT, [first]).problems).toEqual(['move 0: player2 moved first']);
    expect(verifyGame(SEED, COMMIT, [{ ...first, player: 'player9' as Seat }]).problems).toEqual([
      'move 0: player9 is not a seat',
    ]);
  });

  it('names a move made after the game was won', () => {
    const last = moveAt(game.moves.length - 1);
    const extra: MoveRecord = {
      player: last.player === 'player1' ? 'player2' : 'player1',
      number: 1,
      option: 'plain',
      aiNumber: aiNumber(SEED, game.moves.length),
      total: last.total + 1,
      at: last.at + 1,
    };
    expect(verifyGame(SEED, COMMIT, [...game.moves, extra]).problems).toEqual([
      `move ${game.moves.length}: made after the game was won`,
    ]);
  });

  it('names an option not offered at the total before the move', () => {
    const moves: MoveRecord[] = [
      { player: 'player1', number: 4, option: 'minus', aiNumber: aiNumber(SEED, 0), total: 0, at: 0 },
    ];
    expect(verifyGame(SEED, COMMIT, moves).problems).toEqual([
      'move 0: minus is not offered at a total of 0',
    ]);
  });

  it('names an option used more often than its uses and matched credit allow', () => {
    const moves: MoveRecord[] = [];
    let total = 0;
    for (let i = 0; i < 8; i++) {
      const ai = aiNumber(SEED, i);
      const number = (ai % 9) + 1; // never matches
      const option: MoveOption = i % 2 === 0 ? 'bonus' : 'plain';
      total += option === 'bonus' ? number + 1 : number;
      moves.push({ player: i % 2 === 0 ? 'player1' : 'player2', number, option, aiNumber: ai, total, at: i });
    }
    // player1 used bonus 4 times with 3 uses and no match.
    expect(verifyGame(SEED, COMMIT, moves).problems).toEqual(['move 6: player1 has no bonus left']);
  });

  it('names an unknown option', () => {
    const moves: MoveRecord[] = [
      {
        player: 'player1',
        number: 4,
        option: 'triple' as MoveOption,
        aiNumber: aiNumber(SEED, 0),
        total: 12,
        at: 0,
      },
    ];
    expect(verifyGame(SEED, COMMIT, moves).problems).toEqual(['move 0: option triple is unknown']);
  });
});

describe('verifyGame and the move limit', () => {
  /** A legal 250-move draw: plain 1s below 161, then minus with the AI's own number (free). */
  function playDraw(): GameState {
    let state = startGame(initialGameState(), {
      nowMs: Date.UTC(2025, 0, 1),
      duration: 14,
      specialRandom: SR,
      aiSeed: SEED,
    });
    while (!state.gameOver) {
      if (state.moves.length > 2 * MOVE_LIMIT) throw new Error('the game never ended');
      const ai = aiNumber(SEED, state.moves.length);
      const intent =
        state.currentNumber >= 161
          ? { number: ai, option: 'minus' as const }
          : { number: 1, option: 'plain' as const };
      const result = applyMove(state, seatToMove(state) as Seat, intent, {
        nowMs: fromSpecSeconds(state.turnStart) + 500,
        duration: 14,
      });
      if (!result.ok) throw new Error(result.rule);
      state = result.state;
    }
    return state;
  }
  const draw = playDraw();

  it('accepts a legal 250-move draw', () => {
    expect(draw.moves).toHaveLength(MOVE_LIMIT);
    expect(draw.endReason).toBe('moveLimit');
    expect(verifyGame(SEED, COMMIT, draw.moves)).toEqual({ valid: true, problems: [] });
  });

  it('names a move made after the 250th', () => {
    const last = draw.moves[MOVE_LIMIT - 1] as MoveRecord;
    const extra: MoveRecord = {
      player: 'player1',
      number: 1,
      option: 'plain',
      aiNumber: aiNumber(SEED, MOVE_LIMIT),
      total: last.total + 1,
      at: last.at + 1,
    };
    expect(verifyGame(SEED, COMMIT, [...draw.moves, extra]).problems).toEqual([
      `move ${MOVE_LIMIT}: made after the move limit of ${MOVE_LIMIT}`,
    ]);
  });
});

describe('verifyAiNumbers', () => {
  it('checks only the commitment and every AI number', () => {
    expect(verifyAiNumbers(SEED, COMMIT, game.moves)).toEqual({ valid: true, problems: [] });
    expect(verifyAiNumbers(SEED, COMMIT, [])).toEqual({ valid: true, problems: [] });
    expect(verifyAiNumbers(SEED, commitOf(OTHER_SEED), []).problems).toEqual([
      'the seed does not match the commitment',
    ]);
    // A tampered total is a rule problem, not an AI number problem.
    expect(verifyAiNumbers(SEED, COMMIT, tamper(7, { total: 1 })).valid).toBe(true);
    const wrongAi = tamper(2, { aiNumber: (moveAt(2).aiNumber % 9) + 1 });
    expect(verifyAiNumbers(SEED, COMMIT, wrongAi).problems).toEqual([
      expect.stringMatching(/^move 2: AI number/),
    ]);
    expect(verifyAiNumbers('nope', COMMIT, game.moves).problems).toEqual([
      'the seed is not 64 lowercase hex characters',
    ]);
  });
});
