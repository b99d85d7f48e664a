// The old floor: the same number of moves applied in this one process straight through the engine
// (libs/game-rules applyMove) with ONE MongoDB write each (a version-guarded update), against the
// same FerretDB. A move commits to JetStream now and writes no document (tools/bench/lib/floor.ts
// is the floor of that path); this one stays printed as a reference to older figures.
import { randomBytes, randomInt } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { GameState } from '@oasis198/game-rules';
import { chooseMove, rules } from './rules.ts';
import { summarize } from './stats.ts';

const DATABASE = 'oasis-bench-floor';
const DURATION = 32;
/** The rooms service's random source: the operating system's CSPRNG. */
const random = () => randomInt(0, 2 ** 47) / 2 ** 47;
/** A new game from `state` (the engine's initial state, or a finished game's), as rooms starts one. */
const newGame = (state: GameState) =>
  rules.startGame(state, {
    duration: DURATION,
    nowMs: Date.now(),
    specialRandom: randomInt(100_000, 1_000_000),
    aiSeed: randomBytes(32).toString('hex'),
  });

type FloorOptions = { mongoUrl: string; moves: number; games: number; inFlight?: number };
/** A game as the floor stores it: its state as JSON text. */
type StoredGame = { _id: string; version: number; whosTurn: string };

/**
 * Applies `moves` moves over `games` games with `inFlight` writes in flight at most: one per game
 * (the default; a game's moves are sequential) or 1. Resolves { moves, games, inFlight, seconds,
 * movesPerSec, latency (ms per move: engine + write) }; the caller samples the CPU.
 */
export async function measureOldFloor({ mongoUrl, moves, games, inFlight = games }: FloorOptions) {
  const client = await MongoClient.connect(`${mongoUrl}/${DATABASE}`, { maxPoolSize: 100 });
  const collection = client.db(DATABASE).collection<StoredGame>('games');
  try {
    await collection.drop().catch(() => undefined);
    const states = Array.from({ length: games }, () => newGame(rules.initialGameState()));
    // The driver splits a large insert into batches the server takes.
    await collection.insertMany(
      states.map((state, i) => ({ _id: `floor-${i}`, version: 1, whosTurn: JSON.stringify(state) })),
    );
    const versions = states.map(() => 1);
    const latencies: number[] = [];
    let remaining = moves;
    let refused = 0;
    const started = performance.now();
    // `inFlight` workers share the games: worker w plays games w, w + inFlight, ... in turn.
    await Promise.all(
      Array.from({ length: Math.min(inFlight, games) }, async (_, w) => {
        for (let turn = 0; remaining > 0; turn++) {
          const g = (w + turn * inFlight) % games;
          remaining--;
          const t0 = performance.now();
          const last = states[g] as GameState;
          const version = versions[g] as number;
          const state = last.gameOver ? newGame(last) : last;
          const seat = rules.seatToMove(state);
          if (!seat) throw new Error('no seat to move in a game that is on');
          const result = rules.applyMove(state, seat, chooseMove(state, seat), {
            duration: DURATION,
            nowMs: Date.now(),
            random,
          });
          if (!result.ok) {
            refused++;
            continue;
          }
          const written = await collection.updateOne(
            { _id: `floor-${g}`, version },
            { $set: { whosTurn: JSON.stringify(result.state), version: version + 1 } },
          );
          if (written.matchedCount !== 1)
            throw new Error(`floor write of game ${g} matched ${written.matchedCount}`);
          versions[g] = version + 1;
          states[g] = result.state;
          latencies.push(performance.now() - t0);
        }
      }),
    );
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
  } finally {
    await client
      .db(DATABASE)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
}
