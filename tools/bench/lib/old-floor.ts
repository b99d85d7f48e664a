// The old floor: the same number of moves applied in this one process straight through the engine
// (libs/game-rules applyMove) with ONE MongoDB write each (a version-guarded update), against the
// same FerretDB. A move commits to JetStream now and writes no document (tools/bench/lib/floor.ts
// is the floor of that path); this one stays printed as a reference to older figures.
import { MongoClient } from 'mongodb';
import { DURATION, playGames, random } from './floor-games.ts';
import { chooseMove, rules } from './rules.ts';

const DATABASE = 'oasis-bench-floor';

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
    const versions = Array<number>(games).fill(1);
    // The driver splits a large insert into batches the server takes.
    const setUp = (states: unknown[]) =>
      collection.insertMany(
        states.map((state, i) => ({ _id: `floor-${i}`, version: 1, whosTurn: JSON.stringify(state) })),
      );
    return await playGames(
      { moves, games, inFlight },
      async (g, _last, state, seat) => {
        const version = versions[g] as number;
        const result = rules.applyMove(state, seat, chooseMove(state, seat), {
          duration: DURATION,
          nowMs: Date.now(),
          random,
        });
        if (!result.ok) return null;
        const written = await collection.updateOne(
          { _id: `floor-${g}`, version },
          { $set: { whosTurn: JSON.stringify(result.state), version: version + 1 } },
        );
        if (written.matchedCount !== 1)
          throw new Error(`floor write of game ${g} matched ${written.matchedCount}`);
        versions[g] = version + 1;
        return result.state;
      },
      { setUp },
    );
  } finally {
    await client
      .db(DATABASE)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
}
