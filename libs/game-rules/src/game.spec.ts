import { aiCommitOf, aiNumber, drawPick } from './ai';
import { MOVE_LIMIT } from './constants';
import { OASIS_OPTIONS, freshOasis, type MoveOption, type OasisCounts, type OasisOption } from './oasis';
import {
  abandonedAt,
  applyLeave,
  applyMove,
  applyTimeout,
  currentTurn,
  END_REASONS,
  initialGameState,
  isAbortedGame,
  isPick,
  isSeat,
  isTurnExpired,
  markReady,
  oasisKeyOf,
  otherSeat,
  parseMoveIntent,
  postGameExpiry,
  SEATS,
  seatToMove,
  startGame,
  timeoutAt,
  turnDeadline,
  type GameState,
  type MoveIntent,
  type Seat,
  type Transition,
} from './game';
import { seeded } from './testing/seeded';
import { fromSpecSeconds, toSpecSeconds } from './time';

// ---------------------------------------------------------------------------------------------
// Fixtures

const T0 = Date.UTC(2025, 4, 1, 12, 0, 0, 250);
const DURATION = 32;
const SR = 123_456;
const NEXT_SR = 654_321;
/** 32-byte AI seeds, as the rooms service draws them from a CSPRNG (hex). */
const SEED = '9f'.repeat(16) + '3c'.repeat(16);
const NEXT_SEED = '00112233445566778899aabbccddeeff'.repeat(2);

const start = (nowMs = T0, duration = DURATION, specialRandom = SR, aiSeed = SEED): GameState =>
  startGame(initialGameState(), { nowMs, duration, specialRandom, aiSeed });

/** Milliseconds since the current turn started. */
const at = (state: GameState, seconds: number): number => fromSpecSeconds(state.turnStart) + seconds * 1000;

/** A pick that equals (or, with match false, differs from) the AI's number for the next move. */
function pickFor(state: GameState, match: boolean): number {
  const ai = aiNumber(state.aiSeed as string, state.moves.length);
  return match ? ai : (ai % 9) + 1;
}

function ok<T extends Transition<object>>(result: T): Extract<T, { ok: true }> {
  if (!result.ok) throw new Error(`refused: ${result.rule} (${result.message})`);
  return result as Extract<T, { ok: true }>;
}

function move(state: GameState, seat: Seat, intent: MoveIntent, seconds = 1): GameState {
  return ok(applyMove(state, seat, intent, { nowMs: at(state, seconds), duration: DURATION })).state;
}

/** A running game whose total, next player and oasis counts are set directly. */
function runningAt(
  total: number,
  { seat = 'player1', oasis = {} }: { seat?: Seat; oasis?: Partial<OasisCounts> } = {},
): GameState {
  const state = start();
  return {
    ...state,
    currentNumber: total,
    player1: { turn: seat === 'player1', restart: false },
    player2: { turn: seat === 'player2', restart: false },
    helpOasis: { ...state.helpOasis, [oasisKeyOf(seat)]: { ...freshOasis(), ...oasis } },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function expectRefused(result: Transition<object>, rule: string): void {
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.rule).toBe(rule);
    expect(result.message).toEqual(expect.any(String));
    expect(result.message.length).toBeGreaterThan(0);
  }
}

/** Plays plain 9s until the game is over (22 moves, won by player 2); returns the final state. */
function playToEnd(state: GameState): GameState {
  let s = state;
  while (!s.gameOver) s = move(s, seatToMove(s) as Seat, { number: 9, option: 'plain' });
  return s;
}

// ---------------------------------------------------------------------------------------------

describe('seats', () => {
  it('are player1 and player2, each with its own oasis', () => {
    expect(SEATS).toEqual(['player1', 'player2']);
    expect(otherSeat('player1')).toBe('player2');
    expect(otherSeat('player2')).toBe('player1');
    expect(oasisKeyOf('player1')).toBe('oasis1');
    expect(oasisKeyOf('player2')).toBe('oasis2');
    expect(isSeat('player1') && isSeat('player2')).toBe(true);
    expect(isSeat('player3') || isSeat('') || isSeat(undefined) || isSeat(1)).toBe(false);
    expect(END_REASONS).toEqual(['reached198', 'timeout', 'left', 'moveLimit']);
  });
});

describe('initialGameState', () => {
  it('is a room before its first game', () => {
    const state = initialGameState();
    expect(state).toMatchObject({
      gameStarted: false,
      gameOver: false,
      currentNumber: 0,
      specialRandom: 0,
      aiSeed: null,
      aiCommit: null,
      moves: [],
      winner: null,
      endReason: null,
      deadline: null,
      endedAt: null,
      gameNumber: 0,
    });
    expect(seatToMove(state)).toBeNull();
    expect(timeoutAt(state)).toBeNull();
    expect(abandonedAt(state)).toBeNull();
    expect(postGameExpiry(state)).toBeNull();
  });

  it('refuses every intent before the game starts', () => {
    const state = deepFreeze(initialGameState());
    const clock = { nowMs: T0, duration: DURATION };
    expectRefused(applyMove(state, 'player1', { number: 5, option: 'plain' }, clock), 'game-not-started');
    expectRefused(applyTimeout(state, { gameNumber: 0, moveIndex: 0 }, clock), 'game-not-started');
    expectRefused(applyLeave(state, 'player1', clock), 'game-not-started');
    expectRefused(
      markReady(state, 'player1', { ...clock, nextSpecialRandom: SR, nextAiSeed: SEED }),
      'game-not-over',
    );
  });
});

describe('startGame', () => {
  it('starts at total 0 with player 1 to move, every option at 3 uses and matched 0', () => {
    const state = start();
    expect(state.gameStarted).toBe(true);
    expect(state.gameOver).toBe(false);
    expect(state.currentNumber).toBe(0);
    expect(state.player1).toEqual({ turn: true, restart: false });
    expect(state.player2).toEqual({ turn: false, restart: false });
    expect(seatToMove(state)).toBe('player1');
    for (const key of ['oasis1', 'oasis2'] as const) {
      expect(state.helpOasis[key]).toEqual({ double: 3, extra: 3, minus: 3, added: 3, bonus: 3, matched: 0 });
    }
    expect(state.moves).toEqual([]);
    expect(state.winner).toBeNull();
    expect(state.endReason).toBeNull();
    expect(state.endedAt).toBeNull();
    expect(state.specialRandom).toBe(SR);
    expect(state.aiSeed).toBe(SEED);
    expect(state.aiCommit).toBe(aiCommitOf(SEED));
  });

  it('sets turnStart to now and the deadline to turnStart + duration + 4', () => {
    for (const duration of [14, 32, 60, 300]) {
      const state = start(T0, duration);
      expect(state.turnStart).toBe(toSpecSeconds(T0));
      expect(state.deadline).toBe(toSpecSeconds(T0 + (duration + 4) * 1000));
      expect(state.deadline).toBeCloseTo(state.turnStart + duration + 4, 9);
      expect(turnDeadline(state.turnStart, duration)).toBe(state.deadline);
    }
  });

  it('counts games: the first is game 1 and every start adds 1', () => {
    const first = start();
    expect(first.gameNumber).toBe(1);
    const second = startGame(first, {
      nowMs: T0 + 5000,
      duration: DURATION,
      specialRandom: NEXT_SR,
      aiSeed: NEXT_SEED,
    });
    expect(second.gameNumber).toBe(2);
    expect(
      startGame({ ...second, gameNumber: 41 }, { nowMs: T0, duration: 14, specialRandom: SR, aiSeed: SEED })
        .gameNumber,
    ).toBe(42);
  });

  it('takes only a fresh 6-digit specialRandom (100000..999999)', () => {
    for (const specialRandom of [100_000, 999_999, 500_000]) {
      expect(start(T0, DURATION, specialRandom).specialRandom).toBe(specialRandom);
    }
    for (const bad of [99_999, 1_000_000, 0, -1, 123_456.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => start(T0, DURATION, bad)).toThrow(RangeError);
    }
  });

  it('keeps the secret AI seed it is given and commits to it with its SHA-256', () => {
    const state = start(T0, DURATION, SR, NEXT_SEED);
    expect(state.aiSeed).toBe(NEXT_SEED);
    expect(state.aiCommit).toBe(aiCommitOf(NEXT_SEED));
    expect(state.aiCommit).toMatch(/^[0-9a-f]{64}$/);
    for (const bad of ['', 'ab', SEED.toUpperCase(), `${SEED}00`, SEED.slice(2), 'x'.repeat(64)]) {
      expect(() => start(T0, DURATION, SR, bad)).toThrow(RangeError);
    }
  });

  it('resets a finished game completely', () => {
    const over = playToEnd(start());
    const next = startGame(over, {
      nowMs: T0 + 600_000,
      duration: 14,
      specialRandom: NEXT_SR,
      aiSeed: NEXT_SEED,
    });
    expect(next).toEqual({
      ...start(T0 + 600_000, 14, NEXT_SR, NEXT_SEED),
      gameNumber: over.gameNumber + 1,
    });
  });

  it('does not change the state it is given', () => {
    const state = deepFreeze(initialGameState());
    const before = JSON.stringify(state);
    start();
    startGame(state, { nowMs: T0, duration: DURATION, specialRandom: SR, aiSeed: SEED });
    expect(JSON.stringify(state)).toBe(before);
  });

  it('refuses a clock or duration that is not a finite number', () => {
    const state = initialGameState();
    expect(() =>
      startGame(state, { nowMs: Number.NaN, duration: 32, specialRandom: SR, aiSeed: SEED }),
    ).toThrow(RangeError);
    expect(() =>
      startGame(state, { nowMs: T0, duration: Number.NaN, specialRandom: SR, aiSeed: SEED }),
    ).toThrow(RangeError);
    expect(() => startGame(state, { nowMs: T0, duration: -1, specialRandom: SR, aiSeed: SEED })).toThrow(
      RangeError,
    );
  });
});

describe('applyMove: effects', () => {
  const cases: [MoveOption, number, (n: number) => number][] = [
    ['plain', 0, (n) => n],
    ['double', 0, (n) => 2 * n],
    ['extra', 0, (n) => n + 7],
    ['bonus', 0, (n) => n + 1],
    ['extra', 100, (n) => 100 + n + 7],
    ['added', 100, (n) => 100 + n + 4],
    ['bonus', 100, (n) => 100 + n + 1],
    ['added', 170, (n) => 170 + n + 4],
    ['bonus', 170, (n) => 170 + n + 1],
    ['minus', 170, (n) => 170 - 2 * n],
    ['minus', 197, (n) => 197 - 2 * n],
  ];

  it.each(cases)('%s at a total of %i', (option, total, expected) => {
    for (let n = 1; n <= 9; n++) {
      const result = ok(
        applyMove(runningAt(total), 'player1', { number: n, option }, { nowMs: T0, duration: 32 }),
      );
      expect(result.state.currentNumber).toBe(expected(n));
      expect(result.move).toMatchObject({ player: 'player1', number: n, option, total: expected(n) });
      expect(result.state.moves.at(-1)).toEqual(result.move);
    }
  });

  it('an intent without an option is plain', () => {
    const result = ok(
      applyMove(start(), 'player1', { number: 4 } as MoveIntent, { nowMs: T0, duration: 32 }),
    );
    expect(result.move.option).toBe('plain');
    expect(result.state.currentNumber).toBe(4);
  });

  it('floors the total at 0 (minus is offered only from 161, so a real game never gets there)', () => {
    // The floor is still applied: a minus of 9 at 161 leaves 143, and the lowest total minus can
    // reach is 161 - 18 = 143.
    const result = ok(
      applyMove(runningAt(161), 'player1', { number: 9, option: 'minus' }, { nowMs: T0, duration: 32 }),
    );
    expect(result.state.currentNumber).toBe(143);
  });

  it('records the move with the AI number for its index and the time it was made', () => {
    const state = start();
    const nowMs = at(state, 3.5);
    const result = ok(applyMove(state, 'player1', { number: 6, option: 'double' }, { nowMs, duration: 32 }));
    expect(result.move).toEqual({
      player: 'player1',
      number: 6,
      option: 'double',
      aiNumber: aiNumber(SEED, 0),
      total: 12,
      at: toSpecSeconds(nowMs),
    });
    const second = ok(
      applyMove(result.state, 'player2', { number: 1, option: 'plain' }, { nowMs, duration: 32 }),
    );
    expect(second.move.aiNumber).toBe(aiNumber(SEED, 1));
  });

  it('starts the next turn: turnStart = now, deadline = now + duration + 4', () => {
    const state = start();
    const nowMs = at(state, 7.123);
    for (const duration of [14, 300]) {
      const next = ok(applyMove(state, 'player1', { number: 3, option: 'plain' }, { nowMs, duration })).state;
      expect(next.turnStart).toBe(toSpecSeconds(nowMs));
      expect(next.deadline).toBe(toSpecSeconds(nowMs + (duration + 4) * 1000));
      expect(next.gameStarted).toBe(true);
      expect(next.gameOver).toBe(false);
    }
  });
});

describe('applyMove: Oasis tiers', () => {
  const offered: Record<number, OasisOption[]> = {
    0: ['double', 'extra', 'bonus'],
    72: ['double', 'extra', 'bonus'],
    73: ['extra', 'added', 'bonus'],
    160: ['extra', 'added', 'bonus'],
    161: ['added', 'bonus', 'minus'],
    197: ['added', 'bonus', 'minus'],
  };

  for (const [total, options] of Object.entries(offered)) {
    for (const option of OASIS_OPTIONS) {
      const allowed = options.includes(option);
      it(`${allowed ? 'accepts' : 'refuses'} ${option} at a total of ${total}`, () => {
        const state = deepFreeze(runningAt(Number(total)));
        const before = JSON.stringify(state);
        const result = applyMove(
          state,
          'player1',
          { number: pickFor(state, false), option },
          { nowMs: T0, duration: 32 },
        );
        if (allowed) expect(result.ok).toBe(true);
        else expectRefused(result, 'option-not-offered');
        expect(JSON.stringify(state)).toBe(before);
      });
    }
  }

  it('always accepts plain', () => {
    for (const total of [0, 72, 73, 160, 161, 197]) {
      expect(
        applyMove(runningAt(total), 'player1', { number: 1, option: 'plain' }, { nowMs: T0, duration: 32 })
          .ok,
      ).toBe(true);
    }
  });

  it('judges the tier by the total before the move', () => {
    // 70 + double 9 = 88 is accepted although double is not offered at 88.
    const result = ok(
      applyMove(runningAt(70), 'player1', { number: 9, option: 'double' }, { nowMs: T0, duration: 32 }),
    );
    expect(result.state.currentNumber).toBe(88);
  });
});

describe('applyMove: availability and match bookkeeping', () => {
  const run = (state: GameState, intent: MoveIntent) =>
    applyMove(state, seatToMove(state) as Seat, intent, { nowMs: at(state, 1), duration: 32 });

  it('refuses an option with 0 uses and 0 matched (option-used-up)', () => {
    const state = deepFreeze(runningAt(0, { oasis: { double: 0 } }));
    expectRefused(run(state, { number: pickFor(state, true), option: 'double' }), 'option-used-up');
    expectRefused(run(state, { number: pickFor(state, false), option: 'double' }), 'option-used-up');
    // Other options are unaffected.
    expect(run(state, { number: 1, option: 'extra' }).ok).toBe(true);
  });

  it('accepts an option with 0 uses while matched > 0, and charges matched', () => {
    const state = runningAt(0, { oasis: { double: 0, matched: 1 } });
    const next = ok(run(state, { number: pickFor(state, false), option: 'double' })).state;
    expect(next.helpOasis.oasis1).toEqual({ ...freshOasis(), double: 0, matched: 0 });
  });

  it('checks the uses of the mover, not of the opponent', () => {
    const base = runningAt(0, { seat: 'player2', oasis: { double: 0 } });
    const state = { ...base, helpOasis: { ...base.helpOasis, oasis1: { ...freshOasis(), double: 3 } } };
    expectRefused(
      applyMove(state, 'player2', { number: 1, option: 'double' }, { nowMs: T0, duration: 32 }),
      'option-used-up',
    );
  });

  it.each(['plain', 'double', 'extra', 'bonus'] as const)(
    'a matched %s move raises matched by 1 and costs nothing',
    (option) => {
      const state = runningAt(10, { oasis: { matched: 1 } });
      const next = ok(run(state, { number: pickFor(state, true), option })).state;
      expect(next.helpOasis.oasis1).toEqual({ ...freshOasis(), matched: 2 });
      expect(next.helpOasis.oasis2).toEqual(state.helpOasis.oasis2);
    },
  );

  it('a matched move with an option at 0 uses (paid by matched credit) still costs nothing', () => {
    const state = runningAt(10, { oasis: { extra: 0, matched: 1 } });
    const next = ok(run(state, { number: pickFor(state, true), option: 'extra' })).state;
    expect(next.helpOasis.oasis1).toEqual({ ...freshOasis(), extra: 0, matched: 2 });
  });

  it.each(['double', 'extra', 'bonus'] as const)(
    'an unmatched %s move costs 1 matched when matched > 0',
    (option) => {
      const state = runningAt(10, { oasis: { matched: 2 } });
      const next = ok(run(state, { number: pickFor(state, false), option })).state;
      expect(next.helpOasis.oasis1).toEqual({ ...freshOasis(), matched: 1 });
    },
  );

  it.each(['double', 'extra', 'bonus'] as const)(
    'an unmatched %s move costs 1 use when matched is 0',
    (option) => {
      const state = runningAt(10);
      const next = ok(run(state, { number: pickFor(state, false), option })).state;
      expect(next.helpOasis.oasis1).toEqual({ ...freshOasis(), [option]: 2 });
    },
  );

  it('an unmatched added or minus move costs its own use', () => {
    let state = runningAt(170);
    state = ok(run(state, { number: pickFor(state, false), option: 'added' })).state;
    expect(state.helpOasis.oasis1).toEqual({ ...freshOasis(), added: 2 });
    state = { ...state, player1: { turn: true, restart: false }, player2: { turn: false, restart: false } };
    state = ok(run(state, { number: pickFor(state, false), option: 'minus' })).state;
    expect(state.helpOasis.oasis1).toEqual({ ...freshOasis(), added: 2, minus: 2 });
  });

  it('an unmatched plain move costs nothing', () => {
    const state = runningAt(10, { oasis: { matched: 2, double: 1 } });
    const next = ok(run(state, { number: pickFor(state, false), option: 'plain' })).state;
    expect(next.helpOasis).toEqual(state.helpOasis);
  });

  it('uses an option up after three unmatched uses', () => {
    let state = start();
    for (let i = 0; i < 3; i++) {
      state = move(state, 'player1', { number: pickFor(state, false), option: 'bonus' });
      state = move(state, 'player2', { number: 1, option: 'plain' });
    }
    expect(state.helpOasis.oasis1.bonus).toBe(0);
    expectRefused(run(state, { number: 1, option: 'bonus' }), 'option-used-up');
  });
});

describe('applyMove: turn order', () => {
  it('lets only the seat with the turn move', () => {
    const state = deepFreeze(start());
    expectRefused(
      applyMove(state, 'player2', { number: 5, option: 'plain' }, { nowMs: T0, duration: 32 }),
      'not-your-turn',
    );
    const next = move(state, 'player1', { number: 5, option: 'plain' });
    expectRefused(
      applyMove(deepFreeze(next), 'player1', { number: 5, option: 'plain' }, { nowMs: T0, duration: 32 }),
      'not-your-turn',
    );
  });

  it('alternates the turn after every move', () => {
    let state = start();
    const movers: Seat[] = [];
    for (let i = 0; i < 10; i++) {
      const seat = seatToMove(state) as Seat;
      movers.push(seat);
      state = move(state, seat, { number: 1, option: 'plain' });
      expect(state[seat].turn).toBe(false);
      expect(state[otherSeat(seat)].turn).toBe(true);
    }
    expect(movers).toEqual([
      'player1',
      'player2',
      'player1',
      'player2',
      'player1',
      'player2',
      'player1',
      'player2',
      'player1',
      'player2',
    ]);
  });

  it('a move resets both restart flags', () => {
    const base = start();
    const state = {
      ...base,
      player1: { turn: true, restart: true },
      player2: { turn: false, restart: true },
    };
    const next = move(state, 'player1', { number: 2, option: 'plain' });
    expect(next.player1).toEqual({ turn: false, restart: false });
    expect(next.player2).toEqual({ turn: true, restart: false });
  });

  it('refuses a seat that is not a player (not-a-player)', () => {
    const state = deepFreeze(start());
    expectRefused(
      applyMove(state, 'player3' as Seat, { number: 5, option: 'plain' }, { nowMs: T0, duration: 32 }),
      'not-a-player',
    );
  });

  it('nobody is to move when neither seat has the turn', () => {
    const state = { ...start(), player1: { turn: false, restart: false } };
    expect(seatToMove(state)).toBeNull();
    expectRefused(
      applyMove(state, 'player1', { number: 5, option: 'plain' }, { nowMs: T0, duration: 32 }),
      'not-your-turn',
    );
  });
});

describe('applyMove: picks', () => {
  const badPicks: unknown[] = [
    0,
    10,
    -1,
    2.5,
    '5',
    Number.NaN,
    Number.POSITIVE_INFINITY,
    null,
    undefined,
    {},
    [],
    true,
    'Random',
  ];

  it.each(badPicks.map((pick) => [pick]))('refuses the pick %p (pick-out-of-range)', (pick) => {
    const state = deepFreeze(start());
    const before = JSON.stringify(state);
    const intent = { number: pick, option: 'plain' } as unknown as MoveIntent;
    expectRefused(
      applyMove(state, 'player1', intent, { nowMs: T0, duration: 32, random: () => 0.5 }),
      'pick-out-of-range',
    );
    expect(JSON.stringify(state)).toBe(before);
  });

  it('refuses an intent that is not an object', () => {
    for (const intent of [null, undefined, 5, 'random', []]) {
      expectRefused(
        applyMove(start(), 'player1', intent as unknown as MoveIntent, { nowMs: T0, duration: 32 }),
        'pick-out-of-range',
      );
    }
  });

  it('accepts every pick 1..9', () => {
    for (let n = 1; n <= 9; n++) {
      expect(
        ok(applyMove(start(), 'player1', { number: n, option: 'plain' }, { nowMs: T0, duration: 32 })).move
          .number,
      ).toBe(n);
    }
  });

  it('refuses an unknown option (unknown-option)', () => {
    for (const option of ['triple', 'Double', '', null, 3]) {
      const intent = { number: 5, option } as unknown as MoveIntent;
      expectRefused(
        applyMove(deepFreeze(start()), 'player1', intent, { nowMs: T0, duration: 32 }),
        'unknown-option',
      );
    }
  });

  it('draws "random" from the given source, deterministically for a seeded source', () => {
    const state = start();
    const play = (seed: number) =>
      ok(
        applyMove(
          state,
          'player1',
          { number: 'random', option: 'plain' },
          { nowMs: T0, duration: 32, random: seeded(seed) },
        ),
      ).move.number;
    for (let seed = 1; seed <= 30; seed++) {
      expect(play(seed)).toBe(drawPick(seeded(seed)));
      expect(play(seed)).toBe(play(seed));
      expect(isPick(play(seed))).toBe(true);
    }
    expect(new Set(Array.from({ length: 200 }, (_, seed) => play(seed))).size).toBe(9);
    const r = (value: number) =>
      ok(
        applyMove(
          state,
          'player1',
          { number: 'random', option: 'double' },
          { nowMs: T0, duration: 32, random: () => value },
        ),
      );
    expect(r(0).move.number).toBe(1);
    expect(r(0).state.currentNumber).toBe(2);
    expect(r(0.99).move.number).toBe(9);
  });

  it('refuses "random" without a source (random-unavailable)', () => {
    const state = deepFreeze(start());
    expectRefused(
      applyMove(state, 'player1', { number: 'random', option: 'plain' }, { nowMs: T0, duration: 32 }),
      'random-unavailable',
    );
  });

  it('does not draw when the option is refused', () => {
    const random = jest.fn(() => 0.5);
    expectRefused(
      applyMove(
        start(),
        'player1',
        { number: 'random', option: 'minus' },
        { nowMs: T0, duration: 32, random },
      ),
      'option-not-offered',
    );
    expect(random).not.toHaveBeenCalled();
  });
});

describe('parseMoveIntent and isPick', () => {
  it('passes valid intents through unchanged', () => {
    expect(parseMoveIntent({ number: 3, option: 'minus' })).toEqual({
      ok: true,
      intent: { number: 3, option: 'minus' },
    });
    expect(parseMoveIntent({ number: 'random', option: 'plain' })).toEqual({
      ok: true,
      intent: { number: 'random', option: 'plain' },
    });
    expect(parseMoveIntent({ number: 9 })).toEqual({ ok: true, intent: { number: 9, option: 'plain' } });
  });

  it('refuses without coercion', () => {
    expect(parseMoveIntent({ number: '3' })).toMatchObject({ ok: false, rule: 'pick-out-of-range' });
    expect(parseMoveIntent({ number: 3, option: 'PLAIN' })).toMatchObject({
      ok: false,
      rule: 'unknown-option',
    });
    expect(parseMoveIntent('x')).toMatchObject({ ok: false, rule: 'pick-out-of-range' });
  });

  it('isPick accepts exactly the integers 1..9', () => {
    expect([0, 1, 5, 9, 10, 1.5, '1', Number.NaN].map(isPick)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('game over at 198', () => {
  it('is not over at 197', () => {
    const next = move(runningAt(189), 'player1', { number: 8, option: 'plain' });
    expect(next.currentNumber).toBe(197);
    expect(next.gameOver).toBe(false);
    expect(next.winner).toBeNull();
    expect(seatToMove(next)).toBe('player2');
  });

  it.each([
    [190, 8, 'plain', 198],
    [190, 9, 'plain', 199],
    [190, 4, 'added', 198],
    [197, 1, 'plain', 198],
    [197, 9, 'added', 210],
    [196, 1, 'bonus', 198],
  ] as const)('ends at %i + %i (%s) = %i with the mover as winner', (total, n, option, expected) => {
    for (const seat of SEATS) {
      const state = runningAt(total, { seat });
      const nowMs = at(state, 2.5);
      const next = ok(applyMove(state, seat, { number: n, option }, { nowMs, duration: 32 })).state;
      expect(next.currentNumber).toBe(expected);
      expect(next.gameOver).toBe(true);
      expect(next.winner).toBe(seat);
      expect(next.endReason).toBe('reached198');
      expect(next.deadline).toBeNull();
      expect(next.endedAt).toBe(toSpecSeconds(nowMs));
      // SPEC: the winner is the player who did not have the turn when the game ended.
      expect(next[seat].turn).toBe(false);
      expect(next[otherSeat(seat)].turn).toBe(true);
      expect(seatToMove(next)).toBeNull();
      expect(timeoutAt(next)).toBeNull();
      expect(abandonedAt(next)).toBeNull();
    }
  });

  it('does not end when minus keeps the total below 198', () => {
    const next = move(runningAt(197), 'player1', { number: 9, option: 'minus' });
    expect(next.currentNumber).toBe(179);
    expect(next.gameOver).toBe(false);
  });

  it('refuses every intent after the game is over (game-over)', () => {
    const over = deepFreeze(playToEnd(start()));
    const before = JSON.stringify(over);
    const clock = { nowMs: fromSpecSeconds(over.endedAt as number) + 1000, duration: 32 };
    for (const seat of SEATS) {
      expectRefused(applyMove(over, seat, { number: 1, option: 'plain' }, clock), 'game-over');
      expectRefused(
        applyMove(over, seat, { number: 'random', option: 'plain' }, { ...clock, random: () => 0 }),
        'game-over',
      );
      expectRefused(applyLeave(over, seat, clock), 'game-over');
    }
    expectRefused(applyTimeout(over, currentTurn(over), { nowMs: clock.nowMs + 3_600_000 }), 'game-over');
    expect(JSON.stringify(over)).toBe(before);
  });

  it('a whole game of plain 9s is won on the 22nd move, by player 2', () => {
    const over = playToEnd(start());
    expect(over.moves).toHaveLength(22);
    expect(over.currentNumber).toBe(198);
    expect(over.winner).toBe('player2');
  });
});

describe('time', () => {
  const plain: MoveIntent = { number: 5, option: 'plain' };

  it('accepts a move at exactly deadline + 1 s and refuses one a millisecond later (turn-expired)', () => {
    for (const duration of [14, 32, 60, 300]) {
      const state = deepFreeze(start(T0, duration));
      const lastMs = fromSpecSeconds(state.deadline as number) + 1000;
      expect(lastMs).toBe(T0 + (duration + 5) * 1000);
      expect(applyMove(state, 'player1', plain, { nowMs: lastMs, duration }).ok).toBe(true);
      expect(isTurnExpired(state, lastMs)).toBe(false);
      expectRefused(applyMove(state, 'player1', plain, { nowMs: lastMs + 1, duration }), 'turn-expired');
      expect(isTurnExpired(state, lastMs + 1)).toBe(true);
    }
  });

  it('compares exactly where floating-point seconds are one ulp off', () => {
    // toSpecSeconds(nowMs) + 36 is 131087.06699999998 here, not 131087.067.
    const nowMs = 1_668_774_251_067;
    const state = start(nowMs, 32);
    expect(state.deadline).toBe(toSpecSeconds(nowMs + 36_000));
    expect(timeoutAt(state)).toBe(toSpecSeconds(nowMs + 37_000));
    expect(applyMove(state, 'player1', plain, { nowMs: nowMs + 37_000, duration: 32 }).ok).toBe(true);
    expectRefused(applyTimeout(state, currentTurn(state), { nowMs: nowMs + 37_000 }), 'timeout-not-due');
    expect(applyTimeout(state, currentTurn(state), { nowMs: nowMs + 37_001 }).ok).toBe(true);
  });

  it('compares exactly where deadline + 1 crosses a power of two (2027-02-17T10:42:08.006Z)', () => {
    // The deadline 134217727.006 is exact to the millisecond, but 134217727.006 + 1 is
    // 134217728.00599998 in floating point, below the clock reading of that instant.
    const nowMs = Date.UTC(2027, 1, 17, 10, 41, 31, 6);
    const state = start(nowMs, 32);
    expect(state.deadline).toBe(134217727.006);
    const lastMs = nowMs + 37_000;
    expect(toSpecSeconds(lastMs)).toBe(134217728.006);
    expect(applyMove(state, 'player1', plain, { nowMs: lastMs, duration: 32 }).ok).toBe(true);
    expectRefused(applyTimeout(state, currentTurn(state), { nowMs: lastMs }), 'timeout-not-due');
    expectRefused(applyMove(state, 'player1', plain, { nowMs: lastMs + 1, duration: 32 }), 'turn-expired');
  });

  it('accepts a move at any time before the deadline', () => {
    const state = start();
    for (const seconds of [0, 0.001, 10, 35.999, 36, 37]) {
      expect(applyMove(state, 'player1', plain, { nowMs: at(state, seconds), duration: 32 }).ok).toBe(true);
    }
  });

  it('applies a timeout only after deadline + 1 s, and the player who had the turn loses', () => {
    for (const seat of SEATS) {
      const state = deepFreeze(seat === 'player1' ? start() : move(start(), 'player1', plain));
      const ref = currentTurn(state);
      const dueMs = fromSpecSeconds(timeoutAt(state) as number);
      expectRefused(
        applyTimeout(state, ref, { nowMs: fromSpecSeconds(state.deadline as number) }),
        'timeout-not-due',
      );
      expectRefused(applyTimeout(state, ref, { nowMs: dueMs }), 'timeout-not-due');
      const result = ok(applyTimeout(state, ref, { nowMs: dueMs + 1 }));
      expect(result.loser).toBe(seat);
      expect(result.state).toMatchObject({
        gameOver: true,
        winner: otherSeat(seat),
        endReason: 'timeout',
        deadline: null,
        endedAt: toSpecSeconds(dueMs + 1),
      });
      expect(result.state[seat].turn).toBe(true);
      expect(result.state[otherSeat(seat)].turn).toBe(false);
      expect(result.state.currentNumber).toBe(state.currentNumber);
      expect(result.state.moves).toEqual(state.moves);
      // Repeating it changes nothing.
      expectRefused(applyTimeout(deepFreeze(result.state), ref, { nowMs: dueMs + 2 }), 'game-over');
    }
  });

  it('refuses a timeout for a turn that was played or belongs to another game (stale-turn)', () => {
    const first = start();
    const ref = currentTurn(first);
    expect(ref).toEqual({ gameNumber: 1, moveIndex: 0 });
    const second = deepFreeze(move(first, 'player1', plain));
    expect(currentTurn(second)).toEqual({ gameNumber: 1, moveIndex: 1 });
    const late = fromSpecSeconds(timeoutAt(second) as number) + 1;
    expectRefused(applyTimeout(second, ref, { nowMs: late }), 'stale-turn');
    expectRefused(applyTimeout(second, { gameNumber: 1, moveIndex: 2 }, { nowMs: late }), 'stale-turn');
    expectRefused(applyTimeout(second, { gameNumber: 0, moveIndex: 1 }, { nowMs: late }), 'stale-turn');
    expect(applyTimeout(second, { gameNumber: 1, moveIndex: 1 }, { nowMs: late }).ok).toBe(true);

    // A timeout from the previous game is stale in the next one, even at the same move index.
    const over = playToEnd(start());
    const endedMs = fromSpecSeconds(over.endedAt as number);
    const p1 = ok(
      markReady(over, 'player1', {
        nowMs: endedMs + 1000,
        duration: 32,
        nextSpecialRandom: NEXT_SR,
        nextAiSeed: NEXT_SEED,
      }),
    ).state;
    const next = ok(
      markReady(p1, 'player2', {
        nowMs: endedMs + 2000,
        duration: 32,
        nextSpecialRandom: NEXT_SR,
        nextAiSeed: NEXT_SEED,
      }),
    ).state;
    expect(next.gameNumber).toBe(2);
    expectRefused(
      applyTimeout(
        next,
        { gameNumber: 1, moveIndex: 0 },
        { nowMs: fromSpecSeconds(timeoutAt(next) as number) + 1 },
      ),
      'stale-turn',
    );
  });

  it('derives timeoutAt = deadline + 1, abandonedAt = deadline + 60, postGameExpiry = endedAt + 64', () => {
    const state = start();
    const deadline = state.deadline as number;
    expect(timeoutAt(state)).toBe(toSpecSeconds(fromSpecSeconds(deadline) + 1000));
    expect(timeoutAt(state)).toBeCloseTo(deadline + 1, 9);
    expect(abandonedAt(state)).toBe(toSpecSeconds(fromSpecSeconds(deadline) + 60_000));
    expect(postGameExpiry(state)).toBeNull();
    const over = playToEnd(state);
    const endedAt = over.endedAt as number;
    expect(postGameExpiry(over)).toBe(toSpecSeconds(fromSpecSeconds(endedAt) + 64_000));
    expect(postGameExpiry(over)).toBeCloseTo(endedAt + 64, 9);
    expect(timeoutAt(over)).toBeNull();
    expect(abandonedAt(over)).toBeNull();
  });

  it('refuses a clock that is not a finite number', () => {
    const state = start();
    expect(() => applyMove(state, 'player1', plain, { nowMs: Number.NaN, duration: 32 })).toThrow(RangeError);
    expect(() => applyTimeout(state, currentTurn(state), { nowMs: Number.NaN })).toThrow(RangeError);
    expect(() => applyMove(state, 'player1', plain, { nowMs: T0, duration: Number.NaN })).toThrow(RangeError);
  });
});

describe('applyLeave', () => {
  it.each(SEATS)('%s leaving loses the game with endReason left', (leaver) => {
    for (const state of [start(), move(start(), 'player1', { number: 3, option: 'plain' })]) {
      const nowMs = at(state, 5);
      const result = ok(applyLeave(deepFreeze(state), leaver, { nowMs }));
      expect(result.state).toMatchObject({
        gameOver: true,
        winner: otherSeat(leaver),
        endReason: 'left',
        deadline: null,
        endedAt: toSpecSeconds(nowMs),
        currentNumber: state.currentNumber,
      });
      // The loser holds the turn, whoever had it.
      expect(result.state[leaver].turn).toBe(true);
      expect(result.state[otherSeat(leaver)].turn).toBe(false);
    }
  });

  it('after deadline + 1 s the game is already lost by timeout by the player who had the turn', () => {
    const state = start();
    const lateMs = fromSpecSeconds(timeoutAt(state) as number) + 1;
    const byOther = ok(applyLeave(state, 'player2', { nowMs: lateMs })).state;
    expect(byOther).toMatchObject({ winner: 'player2', endReason: 'timeout' });
    const byMover = ok(applyLeave(state, 'player1', { nowMs: lateMs })).state;
    expect(byMover).toMatchObject({ winner: 'player2', endReason: 'timeout' });
    // Up to deadline + 1 s the leaver loses.
    const inTime = ok(applyLeave(state, 'player2', { nowMs: lateMs - 1 })).state;
    expect(inTime).toMatchObject({ winner: 'player1', endReason: 'left' });
  });

  it('refuses a seat that is not a player', () => {
    expectRefused(applyLeave(start(), 'nobody' as Seat, { nowMs: T0 }), 'not-a-player');
  });
});

describe('isAbortedGame (DECISIONS.md "Aborted games")', () => {
  const plain3: MoveIntent = { number: 3, option: 'plain' };

  it('is aborted when a game ends before each player has moved: a leave, a timeout', () => {
    const fresh = start();
    const oneMove = move(fresh, 'player1', plain3);
    for (const state of [fresh, oneMove]) {
      for (const leaver of SEATS) {
        expect(isAbortedGame(ok(applyLeave(state, leaver, { nowMs: at(state, 5) })).state)).toBe(true);
      }
      const late = fromSpecSeconds(timeoutAt(state) as number) + 1;
      expect(isAbortedGame(ok(applyTimeout(state, currentTurn(state), { nowMs: late })).state)).toBe(true);
    }
  });

  it('is not aborted once both have moved, nor while a game runs, nor after 198 or a draw', () => {
    const both = move(move(start(), 'player1', plain3), 'player2', plain3);
    expect(isAbortedGame(both)).toBe(false);
    expect(isAbortedGame(start())).toBe(false);
    expect(isAbortedGame(ok(applyLeave(both, 'player1', { nowMs: at(both, 5) })).state)).toBe(false);
    const late = fromSpecSeconds(timeoutAt(both) as number) + 1;
    expect(isAbortedGame(ok(applyTimeout(both, currentTurn(both), { nowMs: late })).state)).toBe(false);
    expect(isAbortedGame(playToEnd(start()))).toBe(false);
  });

  it('goes by who moved, not by how many moves there were', () => {
    const p1 = { player: 'player1' as const };
    const p2 = { player: 'player2' as const };
    for (const endReason of ['left', 'timeout'] as const) {
      expect(isAbortedGame({ gameOver: true, endReason, moves: [p1, p1] })).toBe(true);
      expect(isAbortedGame({ gameOver: true, endReason, moves: [p2] })).toBe(true);
      expect(isAbortedGame({ gameOver: true, endReason, moves: [p1, p2] })).toBe(false);
    }
  });
});

describe('markReady (Play Again)', () => {
  const over = deepFreeze(playToEnd(start()));
  const endedMs = fromSpecSeconds(over.endedAt as number);
  const ready = (state: GameState, seat: Seat, offsetMs: number, nextSpecialRandom = NEXT_SR) =>
    markReady(state, seat, {
      nowMs: endedMs + offsetMs,
      duration: 14,
      nextSpecialRandom,
      nextAiSeed: NEXT_SEED,
    });

  it('is refused while the game runs (game-not-over)', () => {
    const running = deepFreeze(start());
    for (const seat of SEATS) {
      expectRefused(
        markReady(running, seat, {
          nowMs: T0,
          duration: 32,
          nextSpecialRandom: NEXT_SR,
          nextAiSeed: NEXT_SEED,
        }),
        'game-not-over',
      );
    }
  });

  it('marks one player ready within 50 s of game over and refuses after (ready-window-closed)', () => {
    for (const seat of SEATS) {
      for (const offset of [0, 1, 25_000, 50_000]) {
        const result = ok(ready(over, seat, offset));
        expect(result.restarted).toBe(false);
        expect(result.state[seat].restart).toBe(true);
        expect(result.state[otherSeat(seat)].restart).toBe(false);
        expect(result.state.gameOver).toBe(true);
        expect({ ...result.state, [seat]: over[seat] }).toEqual(over);
      }
      expectRefused(ready(over, seat, 50_001), 'ready-window-closed');
      expectRefused(ready(over, seat, 64_000), 'ready-window-closed');
    }
  });

  it('is idempotent', () => {
    const once = ok(ready(over, 'player2', 1000)).state;
    const twice = ok(ready(deepFreeze(once), 'player2', 2000));
    expect(twice.restarted).toBe(false);
    expect(twice.state).toEqual(once);
  });

  it('starts a new game when both are ready', () => {
    const one = ok(ready(over, 'player2', 1000)).state;
    const nowMs = endedMs + 49_000;
    const result = ok(
      markReady(deepFreeze(one), 'player1', {
        nowMs,
        duration: 14,
        nextSpecialRandom: NEXT_SR,
        nextAiSeed: NEXT_SEED,
      }),
    );
    expect(result.restarted).toBe(true);
    expect(result.state).toEqual({
      gameStarted: true,
      gameOver: false,
      currentNumber: 0,
      turnStart: toSpecSeconds(nowMs),
      specialRandom: NEXT_SR,
      aiSeed: NEXT_SEED,
      aiCommit: aiCommitOf(NEXT_SEED),
      player1: { turn: true, restart: false },
      player2: { turn: false, restart: false },
      helpOasis: { oasis1: freshOasis(), oasis2: freshOasis() },
      moves: [],
      winner: null,
      endReason: null,
      deadline: toSpecSeconds(nowMs + 18_000),
      endedAt: null,
      gameNumber: over.gameNumber + 1,
    });
    expect(seatToMove(result.state)).toBe('player1');
  });

  it('works after every end reason', () => {
    const s = start();
    const ends = [
      over,
      ok(applyLeave(s, 'player1', { nowMs: T0 })).state,
      ok(applyTimeout(s, currentTurn(s), { nowMs: fromSpecSeconds(timeoutAt(s) as number) + 1 })).state,
    ];
    for (const end of ends) {
      const endMs = fromSpecSeconds(end.endedAt as number);
      const a = ok(
        markReady(end, 'player1', {
          nowMs: endMs + 10,
          duration: 32,
          nextSpecialRandom: NEXT_SR,
          nextAiSeed: NEXT_SEED,
        }),
      ).state;
      const b = ok(
        markReady(a, 'player2', {
          nowMs: endMs + 20,
          duration: 32,
          nextSpecialRandom: NEXT_SR,
          nextAiSeed: NEXT_SEED,
        }),
      );
      expect(b.restarted).toBe(true);
      expect(b.state.gameNumber).toBe(end.gameNumber + 1);
    }
  });

  it('starts the new game with the next AI seed, never the old one', () => {
    const one = ok(ready(over, 'player1', 1000)).state;
    const next = ok(ready(one, 'player2', 2000)).state;
    expect(over.aiSeed).toBe(SEED);
    expect(next.aiSeed).toBe(NEXT_SEED);
    expect(next.aiCommit).toBe(aiCommitOf(NEXT_SEED));
    expect(() =>
      markReady(one, 'player2', {
        nowMs: endedMs + 2000,
        duration: 14,
        nextSpecialRandom: NEXT_SR,
        nextAiSeed: 'ab',
      }),
    ).toThrow(RangeError);
  });

  it('needs a valid next specialRandom to start the new game', () => {
    const one = ok(ready(over, 'player1', 1000)).state;
    expect(() => ready(one, 'player2', 2000, 42)).toThrow(RangeError);
  });

  it('refuses a seat that is not a player', () => {
    expectRefused(ready(over, 'player0' as Seat, 0), 'not-a-player');
  });
});

describe('the move limit (DECISIONS.md "Fair play": a draw after 250 moves)', () => {
  /**
   * Plays `count` legal moves that keep the total below 198: a plain 1 below 161, and from 161 on
   * a minus with the AI's own number, which matches and so costs nothing.
   */
  function playLow(state: GameState, count: number): GameState {
    let s = state;
    for (let i = 0; i < count; i++) {
      const ai = aiNumber(s.aiSeed as string, s.moves.length);
      const intent: MoveIntent = s.currentNumber >= 161 ? { number: ai, option: 'minus' } : plain1;
      s = move(s, seatToMove(s) as Seat, intent);
    }
    return s;
  }
  const plain1: MoveIntent = { number: 1, option: 'plain' };
  const at249 = deepFreeze(playLow(start(), MOVE_LIMIT - 1));

  it('is 250 moves', () => {
    expect(MOVE_LIMIT).toBe(250);
  });

  it('lets the game run after its 249th move', () => {
    expect(at249.moves).toHaveLength(249);
    expect(at249.currentNumber).toBeLessThan(198);
    expect(at249).toMatchObject({ gameOver: false, winner: null, endReason: null, endedAt: null });
    expect(at249.deadline).not.toBeNull();
    // Move index 249 is odd: player 2 makes the 250th move.
    expect(seatToMove(at249)).toBe('player2');
  });

  it('ends the game as a draw with its 250th move below 198: no winner, nobody holds the turn', () => {
    const nowMs = at(at249, 2);
    const result = ok(applyMove(at249, 'player2', plain1, { nowMs, duration: DURATION }));
    expect(result.state.moves).toHaveLength(250);
    expect(result.state.currentNumber).toBeLessThan(198);
    expect(result.state).toMatchObject({
      gameStarted: true,
      gameOver: true,
      winner: null,
      endReason: 'moveLimit',
      deadline: null,
      endedAt: toSpecSeconds(nowMs),
      player1: { turn: false, restart: false },
      player2: { turn: false, restart: false },
    });
    expect(seatToMove(result.state)).toBeNull();
    expect(timeoutAt(result.state)).toBeNull();
    expect(abandonedAt(result.state)).toBeNull();
    expect(postGameExpiry(result.state)).toBe(toSpecSeconds(nowMs + 64_000));
    // Nothing more can happen to the game but Play Again.
    const over = deepFreeze(result.state);
    for (const seat of SEATS) {
      expectRefused(applyMove(over, seat, plain1, { nowMs, duration: DURATION }), 'game-over');
      expectRefused(applyLeave(over, seat, { nowMs }), 'game-over');
    }
    expectRefused(applyTimeout(over, currentTurn(over), { nowMs: nowMs + 600_000 }), 'game-over');
  });

  it('lets a 250th move that reaches 198 win as usual', () => {
    const near = deepFreeze({ ...at249, currentNumber: 190 });
    const result = ok(
      applyMove(near, 'player2', { number: 9, option: 'plain' }, { nowMs: at(near, 1), duration: 32 }),
    );
    expect(result.state.moves).toHaveLength(250);
    expect(result.state).toMatchObject({ gameOver: true, winner: 'player2', endReason: 'reached198' });
    expect(result.state.player1.turn).toBe(true);
    expect(result.state.player2.turn).toBe(false);
  });

  it('is followed by Play Again like any game over', () => {
    const drawn = ok(applyMove(at249, 'player2', plain1, { nowMs: at(at249, 1), duration: DURATION })).state;
    const endedMs = fromSpecSeconds(drawn.endedAt as number);
    const settings = { duration: DURATION, nextSpecialRandom: NEXT_SR, nextAiSeed: NEXT_SEED };
    const one = ok(markReady(drawn, 'player2', { ...settings, nowMs: endedMs + 1000 }));
    expect(one.restarted).toBe(false);
    const both = ok(markReady(one.state, 'player1', { ...settings, nowMs: endedMs + 2000 }));
    expect(both.restarted).toBe(true);
    expect(both.state).toMatchObject({ gameOver: false, moves: [], gameNumber: drawn.gameNumber + 1 });
    expect(seatToMove(both.state)).toBe('player1');
  });
});

describe('a running game stored without an AI seed (before fair play)', () => {
  it('takes no more moves, but still ends by leaving or timeout', () => {
    const { aiSeed: _seed, aiCommit: _commit, ...rest } = start();
    const legacy = deepFreeze(rest as GameState);
    expectRefused(
      applyMove(legacy, 'player1', { number: 5, option: 'plain' }, { nowMs: at(legacy, 1), duration: 32 }),
      'no-ai-seed',
    );
    expect(ok(applyLeave(legacy, 'player1', { nowMs: at(legacy, 1) })).state.endReason).toBe('left');
    const late = fromSpecSeconds(timeoutAt(legacy) as number) + 1;
    expect(ok(applyTimeout(legacy, currentTurn(legacy), { nowMs: late })).state.endReason).toBe('timeout');
  });
});
