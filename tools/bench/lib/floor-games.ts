// What both floors (floor.ts, old-floor.ts) share: the games they play through libs/game-rules and
// the loop that plays them, timing each move; each floor brings only how a move is committed.
import { randomBytes, randomInt } from 'node:crypto';
import type { GameState, Seat } from '@oasis198/game-rules';
import { rules } from './rules.ts';
import { summarize } from './stats.ts';

/** The floors' turn duration in seconds. */
export const DURATION = 32;
/** The rooms service's random source: the operating system's CSPRNG. */
export const random = () => randomInt(0, 2 ** 47) / 2 ** 47;
/** A new game from `state` (the engine's initial state, or a finished game's), as rooms starts one. */
const newGame = (state: GameState) =>
  rules.startGame(state, {
    duration: DURATION,
    nowMs: Date.now(),
    specialRandom: randomInt(100_000, 1_000_000),
    aiSeed: randomBytes(32).toString('hex'),
  });

/**
 * Makes one move in game `g` and commits it: `last` is the game as it stands, `state` the one to
 * move in (a new game after a finished one). Resolves the state after the move, or null when the
 * engine refused it.
 */
type Commit = (g: number, last: GameState, state: GameState, seat: Seat) => Promise<GameState | null>;

/**
 * Plays `moves` moves over `games` new games with `inFlight` moves in flight at most: one per game
 * (a game's moves are sequential) or 1; worker w plays games w, w + inFlight, ... in turn. Resolves
 * { moves, games, inFlight, refused, seconds, movesPerSec, latency (ms per move, commit included) }.
 * `setUp` runs on the new games before the clock starts, `drain` after the last move, before it stops.
 */
export async function playGames(
  { moves, games, inFlight }: { moves: number; games: number; inFlight: number },
  commit: Commit,
  {
    setUp = async () => undefined,
    drain = async () => undefined,
  }: { setUp?: (states: GameState[]) => Promise<unknown>; drain?: () => Promise<unknown> } = {},
) {
  const states = Array.from({ length: games }, () => newGame(rules.initialGameState()));
  await setUp(states);
  const latencies: number[] = [];
  let remaining = moves;
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, games) }, async (_, w) => {
      for (let turn = 0; remaining > 0; turn++) {
        const g = (w + turn * inFlight) % games;
        remaining--;
        const t0 = performance.now();
        const last = states[g] as GameState;
        const state = last.gameOver ? newGame(last) : last;
        const seat = rules.seatToMove(state);
        if (!seat) throw new Error('no seat to move in a game that is on');
        const next = await commit(g, last, state, seat);
        if (!next) {
          refused++;
          continue;
        }
        states[g] = next;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await drain();
  const seconds = (performance.now() - started) / 1000;
  return {
    moves: latencies.length,
    games,
    inFlight: Math.min(inFlight, games),
    refused,
    seconds,
    movesPerSec: latencies.length / seconds,
    latency: summarize(latencies),
  };
}
