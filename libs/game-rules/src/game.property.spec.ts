/**
 * Property-based tests: random sequences of intents (valid and invalid, from both seats and from
 * strangers, at random clock readings, exact deadline edges included) are driven through
 * applyMove / applyTimeout / applyLeave / markReady and checked against an independent model of
 * DECISIONS.md "Game rules", "Fair play" and "Time" (integer milliseconds, node:crypto for the AI
 * number and its commitment), plus invariants on the engine's own state.
 */
import fc from 'fast-check';
import { createHash, createHmac } from 'node:crypto';
import { aiNumber } from './ai';
import { MOVE_LIMIT } from './constants';
import {
  applyLeave,
  applyMove,
  applyTimeout,
  initialGameState,
  markReady,
  startGame,
  timeoutAt,
  type GameState,
  type MoveIntent,
  type Seat,
  type Transition,
  type TurnRef,
} from './game';
import { OASIS_OPTIONS, usableOptions, type OasisCounts } from './oasis';
import { fromSpecSeconds, toSpecSeconds } from './time';
import { seeded } from './testing/seeded';
import { verifyGame } from './verify';

// ---------------------------------------------------------------------------------------------
// The model: DECISIONS.md restated independently of the engine.

type Option = 'double' | 'extra' | 'added' | 'bonus' | 'minus';
type Counts = Record<Option | 'matched', number>;

interface Model {
  over: boolean;
  total: number;
  toMove: Seat | null;
  oasis: Record<Seat, Counts>;
  moveIndex: number;
  gameNumber: number;
  specialRandom: number;
  aiSeed: string;
  /** Integer Unix milliseconds. */
  turnStartMs: number;
  endedAtMs: number | null;
  restart: Record<Seat, boolean>;
  winner: Seat | null;
  endReason: 'reached198' | 'timeout' | 'left' | 'moveLimit' | null;
}

const fresh = (): Counts => ({ double: 3, extra: 3, minus: 3, added: 3, bonus: 3, matched: 0 });
const other = (seat: Seat): Seat => (seat === 'player1' ? 'player2' : 'player1');
const referenceAi = (seedHex: string, index: number): number =>
  1 + (createHmac('sha256', Buffer.from(seedHex, 'hex')).update(`${index}`).digest().readUInt32BE(0) % 9);
const referenceCommit = (seedHex: string): string =>
  createHash('sha256').update(Buffer.from(seedHex, 'hex')).digest('hex');
/** 32-byte seeds as 64 lowercase hex characters. */
const seedArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

function offeredAt(total: number): Option[] {
  if (total <= 72) return ['double', 'extra', 'bonus'];
  if (total <= 160) return ['extra', 'added', 'bonus'];
  if (total <= 197) return ['added', 'bonus', 'minus'];
  return [];
}

const EFFECT: Record<Option | 'plain', (n: number) => number> = {
  plain: (n) => n,
  double: (n) => 2 * n,
  extra: (n) => n + 7,
  added: (n) => n + 4,
  bonus: (n) => n + 1,
  minus: (n) => -2 * n,
};

const newGame = (gameNumber: number, specialRandom: number, aiSeed: string, nowMs: number): Model => ({
  over: false,
  total: 0,
  toMove: 'player1',
  oasis: { player1: fresh(), player2: fresh() },
  moveIndex: 0,
  gameNumber,
  specialRandom,
  aiSeed,
  turnStartMs: nowMs,
  endedAtMs: null,
  restart: { player1: false, player2: false },
  winner: null,
  endReason: null,
});

type Outcome = { refused: string } | { next: Model; move?: { number: number; aiNumber: number } };

const isSeat = (value: string): value is Seat => value === 'player1' || value === 'player2';

function endModel(m: Model, winner: Seat | null, reason: Model['endReason'], nowMs: number): Model {
  return {
    ...m,
    over: true,
    winner,
    endReason: reason,
    toMove: null,
    endedAtMs: nowMs,
    restart: { player1: false, player2: false },
  };
}

function expired(m: Model, nowMs: number, duration: number): boolean {
  return nowMs > m.turnStartMs + (duration + 4 + 1) * 1000;
}

function modelMove(m: Model, seat: string, cmd: MoveCmd, nowMs: number, duration: number): Outcome {
  if (!isSeat(seat)) return { refused: 'not-a-player' };
  if (m.over) return { refused: 'game-over' };
  if (seat !== m.toMove) return { refused: 'not-your-turn' };
  if (expired(m, nowMs, duration)) return { refused: 'turn-expired' };
  const { number } = cmd;
  if (!(
    number === 'random' ||
    (typeof number === 'number' && Number.isInteger(number) && number >= 1 && number <= 9)
  )) {
    return { refused: 'pick-out-of-range' };
  }
  const option = cmd.option === undefined ? 'plain' : cmd.option;
  if (
    typeof option !== 'string' ||
    !(option === 'plain' || (OASIS_OPTIONS as readonly string[]).includes(option))
  ) {
    return { refused: 'unknown-option' };
  }
  const counts = m.oasis[seat];
  if (option !== 'plain') {
    if (!offeredAt(m.total).includes(option as Option)) return { refused: 'option-not-offered' };
    if (counts[option as Option] + counts.matched <= 0) return { refused: 'option-used-up' };
  }
  if (number === 'random' && !cmd.withRandom) return { refused: 'random-unavailable' };
  const pick = number === 'random' ? 1 + Math.floor(seeded(cmd.seed)() * 9) : (number as number);
  const ai = referenceAi(m.aiSeed, m.moveIndex);
  const total = Math.max(0, m.total + EFFECT[option as Option | 'plain'](pick));
  let nextCounts: Counts = counts;
  if (pick === ai) nextCounts = { ...counts, matched: counts.matched + 1 };
  else if (option !== 'plain' && counts.matched > 0) nextCounts = { ...counts, matched: counts.matched - 1 };
  else if (option !== 'plain') nextCounts = { ...counts, [option]: counts[option as Option] - 1 };
  const moved: Model = {
    ...m,
    total,
    oasis: { ...m.oasis, [seat]: nextCounts },
    moveIndex: m.moveIndex + 1,
    toMove: other(seat),
    restart: { player1: false, player2: false },
    turnStartMs: nowMs,
  };
  // 198 wins; otherwise the 250th move is a draw (DECISIONS.md "Fair play"). Either way the move
  // wrote its turnStart (SPEC §4).
  const next =
    total >= 198
      ? endModel(moved, seat, 'reached198', nowMs)
      : moved.moveIndex >= 250
        ? endModel(moved, null, 'moveLimit', nowMs)
        : moved;
  return { next, move: { number: pick, aiNumber: ai } };
}

function modelTimeout(m: Model, ref: TurnRef, nowMs: number, duration: number): Outcome {
  if (m.over) return { refused: 'game-over' };
  if (ref.gameNumber !== m.gameNumber || ref.moveIndex !== m.moveIndex) return { refused: 'stale-turn' };
  if (!expired(m, nowMs, duration)) return { refused: 'timeout-not-due' };
  return { next: endModel(m, other(m.toMove as Seat), 'timeout', nowMs) };
}

function modelLeave(m: Model, seat: string, nowMs: number, duration: number): Outcome {
  if (!isSeat(seat)) return { refused: 'not-a-player' };
  if (m.over) return { refused: 'game-over' };
  if (expired(m, nowMs, duration)) return { next: endModel(m, other(m.toMove as Seat), 'timeout', nowMs) };
  return { next: endModel(m, other(seat), 'left', nowMs) };
}

function modelReady(
  m: Model,
  seat: string,
  nowMs: number,
  nextSpecialRandom: number,
  nextAiSeed: string,
): Outcome {
  if (!isSeat(seat)) return { refused: 'not-a-player' };
  if (!m.over) return { refused: 'game-not-over' };
  if (nowMs > (m.endedAtMs as number) + 50_000) return { refused: 'ready-window-closed' };
  if (m.restart[seat]) return { next: m };
  const marked = { ...m, restart: { ...m.restart, [seat]: true } };
  if (!marked.restart[other(seat)]) return { next: marked };
  return { next: newGame(m.gameNumber + 1, nextSpecialRandom, nextAiSeed, nowMs) };
}

// ---------------------------------------------------------------------------------------------
// Commands

type Who = 'toMove' | 'waiting' | 'player1' | 'player2' | 'stranger';
type When = { dtMs: number } | { edge: 'timeout' | 'readyEnd'; offsetMs: number };
interface MoveCmd {
  kind: 'move';
  who: Who;
  number: unknown;
  option: unknown;
  withRandom: boolean;
  seed: number;
  when: When;
}
type Cmd =
  | MoveCmd
  | { kind: 'timeout'; ref: 'current' | 'previous-move' | 'next-move' | 'previous-game'; when: When }
  | { kind: 'leave'; who: Who; when: When }
  | { kind: 'ready'; who: Who; when: When; nextSpecialRandom: number; nextAiSeed: string };

const whoArb: fc.Arbitrary<Who> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Who>('toMove') },
  { weight: 2, arbitrary: fc.constantFrom<Who>('waiting', 'player1', 'player2') },
  { weight: 1, arbitrary: fc.constant<Who>('stranger') },
);
const numberArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 1, max: 9 }) },
  { weight: 2, arbitrary: fc.constant('random') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 10, -1, 2.5, '5', Number.NaN, null, undefined, {}) },
);
const optionArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('plain') },
  { weight: 6, arbitrary: fc.constantFrom(...OASIS_OPTIONS) },
  // Bonus is offered at every total below 198, so a player who keeps picking it uses it up
  // (OASIS_START_USES, plus matched credit): without this, 'option-used-up' came up in only a few
  // of the 300 runs, and some test runs met it in none.
  { weight: 3, arbitrary: fc.constant('bonus') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('triple', '', null, undefined) },
);

/**
 * Commands for one run. `disruption` (0..20) sets how often the clock jumps to or past a deadline
 * and how often players leave: calm runs play games to 198 and restart them, wild runs end games
 * by timeout and leaving and probe every time edge.
 */
function commandsArb(disruption: number): fc.Arbitrary<Cmd[]> {
  const whenArb: fc.Arbitrary<When> = fc.oneof(
    { weight: 100, arbitrary: fc.record({ dtMs: fc.integer({ min: 0, max: 3_000 }) }) },
    {
      weight: 1 + disruption,
      arbitrary: fc.record({
        edge: fc.constantFrom('timeout' as const, 'readyEnd' as const),
        offsetMs: fc.integer({ min: -1, max: 1 }),
      }),
    },
    { weight: 1 + disruption, arbitrary: fc.record({ dtMs: fc.integer({ min: -5_000, max: 400_000 }) }) },
  );
  const cmd: fc.Arbitrary<Cmd> = fc.oneof(
    {
      weight: 60,
      arbitrary: fc.record({
        kind: fc.constant('move' as const),
        who: whoArb,
        number: numberArb,
        option: optionArb,
        withRandom: fc.boolean(),
        seed: fc.integer(),
        when: whenArb,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('timeout' as const),
        ref: fc.constantFrom('current', 'current', 'previous-move', 'next-move', 'previous-game'),
        when: whenArb,
      }),
    },
    {
      weight: 1 + Math.floor(disruption / 4),
      arbitrary: fc.record({ kind: fc.constant('leave' as const), who: whoArb, when: whenArb }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('ready' as const),
        who: whoArb,
        when: whenArb,
        nextSpecialRandom: fc.integer({ min: 100_000, max: 999_999 }),
        nextAiSeed: seedArb,
      }),
    },
  );
  return fc.array(cmd, { minLength: 100, maxLength: 250, size: 'max' });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function resolveWho(who: Who, m: Model): string {
  const toMove = m.toMove ?? 'player1';
  switch (who) {
    case 'toMove':
      return toMove;
    case 'waiting':
      return other(toMove);
    case 'stranger':
      return 'player3';
    default:
      return who;
  }
}

function resolveWhen(when: When, state: GameState, nowMs: number): number {
  if ('dtMs' in when) return nowMs + when.dtMs;
  const edge =
    when.edge === 'timeout'
      ? timeoutAt(state)
      : state.endedAt === null
        ? null
        : toSpecSeconds(fromSpecSeconds(state.endedAt) + 50_000);
  return edge === null ? nowMs + when.offsetMs : fromSpecSeconds(edge) + when.offsetMs;
}

// ---------------------------------------------------------------------------------------------
// Checks. Jest's expect is slow in a loop of tens of thousands of steps, so these compare cheaply
// first and fall back to expect only to report a failure with a readable diff.

const json = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));

function same(actual: unknown, expected: unknown): void {
  if (json(actual) !== json(expected)) expect(actual).toEqual(expected);
}

function check(condition: boolean, what: string, state: GameState): void {
  if (!condition) throw new Error(`invariant broken: ${what}\n${JSON.stringify(state)}`);
}

/** SPEC: after a win the loser holds the turn; after a draw nobody does. */
function holdsTurn(m: Model, seat: Seat): boolean {
  if (!m.over) return m.toMove === seat;
  return m.winner !== null && m.winner !== seat;
}

/** The engine state must say exactly what the model says. */
function expectMatchesModel(state: GameState, m: Model, duration: number): void {
  same(
    {
      gameStarted: state.gameStarted,
      gameOver: state.gameOver,
      currentNumber: state.currentNumber,
      player1: state.player1,
      player2: state.player2,
      helpOasis: state.helpOasis,
      moves: state.moves.length,
      gameNumber: state.gameNumber,
      specialRandom: state.specialRandom,
      aiSeed: state.aiSeed,
      aiCommit: state.aiCommit,
      winner: state.winner,
      endReason: state.endReason,
      deadline: state.deadline,
      endedAt: state.endedAt,
      turnStart: state.turnStart,
    },
    {
      gameStarted: true,
      gameOver: m.over,
      currentNumber: m.total,
      player1: { turn: holdsTurn(m, 'player1'), restart: m.restart.player1 },
      player2: { turn: holdsTurn(m, 'player2'), restart: m.restart.player2 },
      helpOasis: { oasis1: m.oasis.player1, oasis2: m.oasis.player2 },
      moves: m.moveIndex,
      gameNumber: m.gameNumber,
      specialRandom: m.specialRandom,
      aiSeed: m.aiSeed,
      aiCommit: referenceCommit(m.aiSeed),
      winner: m.winner,
      endReason: m.endReason,
      deadline: m.over ? null : toSpecSeconds(m.turnStartMs + (duration + 4) * 1000),
      endedAt: m.endedAtMs === null ? null : toSpecSeconds(m.endedAtMs),
      turnStart: toSpecSeconds(m.turnStartMs),
    },
  );
}

/** Invariants that need no model. */
function expectInvariants(state: GameState): void {
  const c = (condition: boolean, what: string) => check(condition, what, state);
  c(state.currentNumber >= 0, 'the total is never negative');
  for (const counts of [state.helpOasis.oasis1, state.helpOasis.oasis2] as OasisCounts[]) {
    c(
      Object.values(counts).every((v) => Number.isInteger(v) && v >= 0),
      'every Oasis count is a whole number >= 0',
    );
  }
  // Earlier moves were checked when they were made (states are frozen): check the newest one.
  const i = state.moves.length - 1;
  const last = state.moves[i];
  if (last) {
    // Turns alternate: player 1 opens every game, so the seats take even and odd move indexes.
    c(last.player === (i % 2 === 0 ? 'player1' : 'player2'), 'no seat moves twice in a row');
    c(Number.isInteger(last.aiNumber) && last.aiNumber >= 1 && last.aiNumber <= 9, 'the AI number is 1..9');
    c((state.moves[i - 1]?.total ?? 0) < 198, 'no move after the total reached 198');
  }
  c(state.gameOver === (state.endReason !== null), 'an ended game has an end reason');
  c(state.moves.length <= MOVE_LIMIT, 'no game is longer than 250 moves');
  const drawn = state.endReason === 'moveLimit';
  c(state.gameOver === (state.winner !== null || drawn), 'an ended game has a winner, unless drawn');
  c(!drawn || state.winner === null, 'a draw has no winner');
  c(state.gameOver === (state.deadline === null), 'only a running game has a deadline');
  c(state.gameOver === (state.endedAt !== null), 'only an ended game has endedAt');
  if (drawn) {
    c(state.moves.length === MOVE_LIMIT && state.currentNumber < 198, 'a draw is 250 moves below 198');
    c(!state.player1.turn && !state.player2.turn, 'nobody holds the turn after a draw');
  } else if (state.gameOver) {
    // SPEC: the winner is the player who did not have the turn when the game ended.
    const winner = state.winner as Seat;
    c(!state[winner].turn && state[other(winner)].turn, 'the loser holds the turn');
  } else {
    c(state.currentNumber < 198, 'a game at 198 or more is over');
    c(state.player1.turn !== state.player2.turn, 'exactly one seat has the turn');
  }
  if (state.endReason === 'reached198') {
    c(state.currentNumber >= 198, 'reached198 means the total is 198 or more');
    c(state.moves.at(-1)?.player === state.winner, 'the player who reached 198 won');
  }
}

// ---------------------------------------------------------------------------------------------

const T0 = Date.UTC(2024, 2, 3, 4, 5, 6, 789);

describe('game engine properties', () => {
  it('follows the model for random sequences of intents; refusals change nothing', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(
        fc.integer({ min: 100_000, max: 999_999 }),
        seedArb,
        fc.constantFrom(14, 32, 60, 300),
        fc.integer({ min: 0, max: 2e11 }),
        fc.integer({ min: 0, max: 20 }).chain(commandsArb),
        (specialRandom, aiSeed, duration, offsetMs, cmds) => {
          let nowMs = T0 + offsetMs;
          let state = deepFreeze(startGame(initialGameState(), { nowMs, duration, specialRandom, aiSeed }));
          let model = newGame(1, specialRandom, aiSeed, nowMs);
          expectMatchesModel(state, model, duration);

          for (const cmd of cmds) {
            nowMs = resolveWhen(cmd.when, state, nowMs);
            const before = JSON.stringify(state);
            let result: Transition<object>;
            let expected: Outcome;
            if (cmd.kind === 'move') {
              const seat = resolveWho(cmd.who, model);
              const intent = deepFreeze({ number: cmd.number, option: cmd.option } as MoveIntent);
              const settings = deepFreeze({
                nowMs,
                duration,
                ...(cmd.withRandom ? { random: seeded(cmd.seed) } : {}),
              });
              result = applyMove(state, seat as Seat, intent, settings);
              expected = modelMove(model, seat, cmd, nowMs, duration);
            } else if (cmd.kind === 'timeout') {
              const ref = deepFreeze({
                gameNumber: model.gameNumber - (cmd.ref === 'previous-game' ? 1 : 0),
                moveIndex:
                  model.moveIndex + (cmd.ref === 'previous-move' ? -1 : cmd.ref === 'next-move' ? 1 : 0),
              });
              result = applyTimeout(state, ref, deepFreeze({ nowMs }));
              expected = modelTimeout(model, ref, nowMs, duration);
              if (result.ok) same((result as { loser?: Seat }).loser, model.toMove);
            } else if (cmd.kind === 'leave') {
              const seat = resolveWho(cmd.who, model);
              result = applyLeave(state, seat as Seat, deepFreeze({ nowMs }));
              expected = modelLeave(model, seat, nowMs, duration);
            } else {
              const seat = resolveWho(cmd.who, model);
              const settings = deepFreeze({
                nowMs,
                duration,
                nextSpecialRandom: cmd.nextSpecialRandom,
                nextAiSeed: cmd.nextAiSeed,
              });
              result = markReady(state, seat as Seat, settings);
              expected = modelReady(model, seat, nowMs, cmd.nextSpecialRandom, cmd.nextAiSeed);
              if (result.ok && 'next' in expected) {
                same(
                  (result as { restarted?: boolean }).restarted,
                  expected.next.gameNumber !== model.gameNumber,
                );
              }
            }

            // Inputs are never mutated (they are deep-frozen as well).
            check(JSON.stringify(state) === before, 'the input state is unchanged', state);
            if ('refused' in expected) {
              if (result.ok || result.rule !== expected.refused || !result.message) {
                expect(result).toMatchObject({
                  ok: false,
                  rule: expected.refused,
                  message: expect.any(String),
                });
              }
              seen.add(`refused:${expected.refused}`);
              continue;
            }
            if (!result.ok) {
              expect(result).toMatchObject({ ok: true });
              return;
            }
            const next = deepFreeze(result.state);
            if (expected.move) {
              const last = next.moves.at(-1);
              same(last, {
                player: resolveWho(cmd.kind === 'move' ? cmd.who : 'toMove', model),
                number: expected.move.number,
                option: cmd.kind === 'move' && cmd.option !== undefined ? cmd.option : 'plain',
                aiNumber: expected.move.aiNumber,
                total: expected.next.total,
                at: toSpecSeconds(nowMs),
              });
              same(last?.aiNumber, aiNumber(model.aiSeed, model.moveIndex));
            }
            const ended = next.gameOver && !state.gameOver;
            const restarted = next.gameNumber !== state.gameNumber;
            state = next;
            model = expected.next;
            expectMatchesModel(state, model, duration);
            expectInvariants(state);
            if (ended) {
              seen.add(`end:${state.endReason}`);
              expect(verifyGame(model.aiSeed, referenceCommit(model.aiSeed), state.moves)).toEqual({
                valid: true,
                problems: [],
              });
            }
            if (restarted) seen.add('restart');
          }
          expect(verifyGame(model.aiSeed, referenceCommit(model.aiSeed), state.moves)).toEqual({
            valid: true,
            problems: [],
          });
        },
      ),
      { numRuns: 300 },
    );
    // The generators reach every outcome: every refusal a started game can give, every end reason
    // and a restart after Play Again. ('game-not-started' is covered by the unit tests.)
    expect([...seen].sort()).toEqual(
      [
        'end:left',
        'end:reached198',
        'end:timeout',
        'restart',
        ...[
          'game-not-over',
          'game-over',
          'not-a-player',
          'not-your-turn',
          'option-not-offered',
          'option-used-up',
          'pick-out-of-range',
          'random-unavailable',
          'ready-window-closed',
          'stale-turn',
          'timeout-not-due',
          'turn-expired',
          'unknown-option',
        ].map((rule) => `refused:${rule}`),
      ].sort(),
    );
  });

  it('a game of legal moves ends exactly when the total first reaches 198', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100_000, max: 999_999 }),
        seedArb,
        fc.array(fc.record({ n: fc.integer({ min: 1, max: 9 }), choice: fc.integer({ min: 0, max: 5 }) }), {
          minLength: 150,
          maxLength: 150,
        }),
        (specialRandom, aiSeed, picks) => {
          let state = startGame(initialGameState(), { nowMs: T0, duration: 14, specialRandom, aiSeed });
          let reached = false;
          for (const { n, choice } of picks) {
            const seat = state.player1.turn ? 'player1' : 'player2';
            const usable = usableOptions(
              state.currentNumber,
              state.helpOasis[seat === 'player1' ? 'oasis1' : 'oasis2'],
            );
            const option = choice < usable.length ? (usable[choice] as MoveIntent['option']) : 'plain';
            const nowMs = fromSpecSeconds(state.turnStart) + 1000;
            const result = applyMove(state, seat, { number: n, option }, { nowMs, duration: 14 });
            if (reached) {
              check(!result.ok && result.rule === 'game-over', 'no move after game over', state);
              continue;
            }
            if (!result.ok) throw new Error(`legal move refused: ${result.rule}`);
            state = result.state;
            reached = state.currentNumber >= 198;
            check(state.gameOver === reached, 'the game is over exactly from 198 on', state);
            if (reached)
              check(state.winner === seat && state.endReason === 'reached198', 'the mover won', state);
          }
          expect(verifyGame(aiSeed, referenceCommit(aiSeed), state.moves).valid).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
  it('no sequence of legal moves makes a game longer than 250 moves; 250 moves below 198 is a draw', () => {
    // Players who know every AI number (the attack the seed prevents) can play a minus that
    // matches for free from 161 on, so some sequences would keep the total below 198 forever; the
    // 'low' steps do exactly that, the others pick any legal intent.
    let draws = 0;
    fc.assert(
      fc.property(
        seedArb,
        fc.array(
          fc.record({
            low: fc.boolean(),
            n: fc.integer({ min: 1, max: 9 }),
            choice: fc.integer({ min: 0, max: 5 }),
          }),
          { minLength: 260, maxLength: 320 },
        ),
        fc.integer({ min: 0, max: 15 }),
        (aiSeed, steps, lowBias) => {
          let state = startGame(initialGameState(), {
            nowMs: T0,
            duration: 14,
            specialRandom: 123_456,
            aiSeed,
          });
          for (const [i, step] of steps.entries()) {
            const seat = state.player1.turn ? 'player1' : 'player2';
            const nowMs = fromSpecSeconds(state.turnStart) + 1000;
            const counts = state.helpOasis[seat === 'player1' ? 'oasis1' : 'oasis2'];
            const usable = usableOptions(state.currentNumber, counts);
            let intent: MoveIntent;
            if (step.low || i % 16 < lowBias) {
              intent = usable.includes('minus')
                ? { number: referenceAi(aiSeed, state.moves.length), option: 'minus' }
                : { number: 1, option: 'plain' };
            } else {
              intent = { number: step.n, option: usable[step.choice] ?? 'plain' };
            }
            const result = applyMove(state, seat, intent, { nowMs, duration: 14 });
            if (state.gameOver) {
              check(!result.ok && result.rule === 'game-over', 'no move after game over', state);
              continue;
            }
            if (!result.ok) throw new Error(`legal move refused: ${result.rule}`);
            state = result.state;
            check(state.moves.length <= MOVE_LIMIT, 'no game is longer than 250 moves', state);
            if (state.moves.length === MOVE_LIMIT && state.currentNumber < 198) {
              check(
                state.gameOver &&
                  state.endReason === 'moveLimit' &&
                  state.winner === null &&
                  !state.player1.turn &&
                  !state.player2.turn &&
                  state.deadline === null,
                'a game that reaches 250 moves below 198 is a draw',
                state,
              );
            } else {
              check(
                state.gameOver === state.currentNumber >= 198,
                'only 198 or the move limit ends it',
                state,
              );
            }
          }
          // The steps outnumber the limit, so every game ended.
          check(state.gameOver, 'the game ended', state);
          if (state.endReason === 'moveLimit') draws++;
          expect(verifyGame(aiSeed, referenceCommit(aiSeed), state.moves)).toEqual({
            valid: true,
            problems: [],
          });
        },
      ),
      { numRuns: 60 },
    );
    // The generator really reaches the limit, not only 198.
    expect(draws).toBeGreaterThan(5);
  });
});
