// The floor: the work a move commits to, done in this one process with no HTTP. Per move: the
// request body validated with the gateway's schema (contracts' editRoomBodySchema), the move
// applied with libs/game-rules as rooms applies it, the room appended to its own subject with
// Nats-Expected-Last-Subject-Sequence (the per-room lock of the room log), and its push published
// on core NATS. The stream has the room log's settings (contracts' Streams.roomLog, file storage,
// discard new) and replicas as the stack's streams. CPU = this process + NATS.
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  connect,
  DiscardPolicy,
  headers as natsHeaders,
  RetentionPolicy,
  StorageType,
  type NatsConnection,
} from 'nats';
import type { MoveOption } from '@oasis198/game-rules';
import { ROOT } from '../../scripts/lib/workspace.ts';
import { DURATION, playGames, random } from './floor-games.ts';
import { chooseMove, rules } from './rules.ts';

/** What the floor uses of libs/contracts (whose enums keep the package out of this project's type check). */
type ContractsUsed = {
  Streams: { roomLog: { maxBytes: number; maxMsgSize: number; maxAgeMs: number } };
  editRoomBodySchema: {
    safeParse(value: unknown): {
      success: boolean;
      data?: { move?: { number: number | 'random'; option?: string } };
    };
  };
  roomPushHeaders(meta: {
    type: 'room';
    version: number;
    gameNumber: number;
    movesFrom: number;
    moves: number;
  }): Record<string, string>;
};
// Loaded from source like the rules (rules.ts registers @swc-node/register).
const contracts: ContractsUsed = createRequire(path.join(ROOT, 'package.json'))(
  path.join(ROOT, 'libs', 'contracts', 'src', 'index.ts'),
);

/** A stream of its own, so the floor never touches the stack's room log. */
const STREAM = 'BENCHFLOOR';
const logSubject = (roomId: string) => `benchfloor.${roomId}`;
const pushSubject = (roomId: string) => `benchpush.${roomId}`;
const DAY_NS = 24 * 3600 * 1e9;

/** The stream replicas of the stack measured: NATS_STREAM_REPLICAS, as the services read it (1 by default). */
export const streamReplicas = () => Number(process.env.NATS_STREAM_REPLICAS ?? 1) || 1;

type FloorOptions = { natsUrl: string; moves: number; games: number; inFlight?: number; replicas?: number };

async function createStream(nc: NatsConnection, replicas: number) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(STREAM).catch(() => undefined);
  const log = contracts.Streams.roomLog;
  await jsm.streams.add({
    name: STREAM,
    subjects: [logSubject('>')],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    max_bytes: log.maxBytes,
    max_msg_size: log.maxMsgSize,
    max_age: log.maxAgeMs === 0 ? 0 : 14 * DAY_NS,
    duplicate_window: 2 * 60 * 1e9,
    num_replicas: replicas,
  });
  return jsm;
}

/**
 * Applies `moves` moves over `games` games with `inFlight` moves in flight at most: one per game
 * (the default; a game's moves are sequential) or 1. Resolves { moves, games, inFlight, seconds,
 * movesPerSec, latency (ms per move), replicas }; the caller samples the CPU.
 */
export async function measureFloor({
  natsUrl,
  moves,
  games,
  inFlight = games,
  replicas = streamReplicas(),
}: FloorOptions) {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await createStream(nc, replicas);
    const js = nc.jetstream();
    const encoder = new TextEncoder();
    const versions = Array<number>(games).fill(1);
    const seqs = Array<number>(games).fill(0);
    const play = { moves, games, inFlight };
    const figures = await playGames(
      play,
      async (g, last, state, seat) => {
        const roomId = `floor-${g}`;
        // What the gateway gets: the body as text, parsed and validated.
        const body = contracts.editRoomBodySchema.safeParse(
          JSON.parse(JSON.stringify({ move: chooseMove(state, seat) })),
        );
        const move = body.success ? body.data?.move : undefined;
        if (!move) throw new Error('the floor made an invalid move body');
        const { number, option = 'plain' } = move;
        const result = rules.applyMove(
          state,
          seat,
          { number, option: option as MoveOption },
          { duration: DURATION, nowMs: Date.now(), random },
        );
        if (!result.ok) return null;
        const version = (versions[g] as number) + 1;
        const room = { _id: roomId, version, whosTurn: result.state };
        const entry = { room, events: [], deleted: false, listed: false };
        const ack = await js.publish(logSubject(roomId), encoder.encode(JSON.stringify(entry)), {
          expect: { lastSubjectSequence: seqs[g] as number, streamName: STREAM },
        });
        // The push holds the moves the previous push did not (as rooms' roomPushes does).
        const movesFrom = last.gameOver ? 0 : last.moves.length;
        const meta = {
          type: 'room' as const,
          version,
          gameNumber: result.state.gameNumber,
          movesFrom,
          moves: result.state.moves.length,
        };
        const h = natsHeaders();
        for (const [name, value] of Object.entries(contracts.roomPushHeaders(meta))) h.set(name, value);
        const push = {
          ...room,
          whosTurn: { ...result.state, moves: result.state.moves.slice(movesFrom) },
          movesFrom,
        };
        nc.publish(pushSubject(roomId), encoder.encode(JSON.stringify(push)), { headers: h });
        // A finished game's older entries go, as the stack purges what it has projected.
        if (result.state.gameOver)
          await jsm.streams.purge(STREAM, { filter: logSubject(roomId), seq: ack.seq });
        seqs[g] = ack.seq;
        versions[g] = version;
        return result.state;
      },
      { drain: () => nc.flush() },
    );
    await jsm.streams.delete(STREAM).catch(() => undefined);
    return { ...figures, replicas };
  } finally {
    await nc.close();
  }
}
