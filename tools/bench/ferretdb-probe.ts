#!/usr/bin/env node
// What one FerretDB operation costs, by collection size and document shape: the probe behind the
// FerretDB findings of docs/benchmarks.md. Starts the launcher (default .tools/bin/ferretdb-launcher,
// or --bin <path> to compare another build) on a free port with a throwaway data directory and
// reports, per case, operations per second and the launcher's CPU per operation (/proc).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { parseOptions } from '../scripts/lib/log.ts';
import { freePort, mongoPing, waitFor } from '../scripts/lib/net.ts';
import { FERRETDB_BIN } from '../scripts/lib/workspace.ts';
import { cpuMsSince, cpuTicks } from './lib/procs.ts';

const { values } = parseOptions('Usage: node tools/bench/ferretdb-probe.ts [--bin <launcher>] [--ops 600]', {
  bin: { type: 'string', default: FERRETDB_BIN },
  ops: { type: 'string', default: '600' },
});
const OPS = Number(values.ops);

const move = (i: number) => ({
  player: i % 2 ? 'player2' : 'player1',
  number: 5,
  option: 'plain',
  aiNumber: 3,
  total: i * 6,
  at: 123456.789 + i,
});
const oasis = () => ({ double: 3, extra: 3, minus: 3, added: 3, bonus: 3, matched: 0 });
/** A GameState 30 moves into a game, and a room as rooms stores it (state + outbox of one move). */
const state = () => ({
  gameStarted: true,
  gameOver: false,
  currentNumber: 100,
  turnStart: 1234.5,
  specialRandom: 123456,
  player1: { turn: true, restart: false },
  player2: { turn: false, restart: false },
  helpOasis: { oasis1: oasis(), oasis2: oasis() },
  moves: Array.from({ length: 30 }, (_, i) => move(i)),
  winner: null,
  endReason: null,
  deadline: 1270.5,
  endedAt: null,
  gameNumber: 1,
});
const events = () => ({
  'move_made:r:1:30': { id: 'move.made:r:1:30', type: 'move.made', data: { move: move(30) } },
  'room_updated:r:33': {
    id: 'room.updated:r:33',
    type: 'room.updated',
    data: { room: { _id: 'r', players: [{ id: 'a' }, { id: 'b' }], whosTurn: state(), version: 33 } },
  },
});
const text = (map: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(map).map(([k, v]) => [k, JSON.stringify(v)]));
/** What a guarded update reads of a document (its other fields are the payload). */
type Doc = { _id: string; version: number };
const SHAPES = {
  'state and outbox as sub-documents': () => ({ whosTurn: state(), outbox: events() }),
  'outbox events as JSON text': () => ({ whosTurn: state(), outbox: text(events()) }),
  'state and outbox events as JSON text': () => ({
    whosTurn: JSON.stringify(state()),
    outbox: text(events()),
  }),
};

const dir = await mkdtemp(path.join(os.tmpdir(), 'oasis-ferretdb-probe-'));
const port = await freePort();
const launcher = spawn(values.bin, ['-listen', `127.0.0.1:${port}`, '-data', dir], { stdio: 'ignore' });
let client: MongoClient | undefined;
try {
  await waitFor(() => mongoPing(port), { what: `the FerretDB launcher on port ${port}` });
  client = await MongoClient.connect(`mongodb://127.0.0.1:${port}/probe`, { maxPoolSize: 20 });
  const db = client.db('probe');
  const measure = async (label: string, op: (i: number) => Promise<unknown>) => {
    const ticks = cpuTicks(launcher.pid) ?? 0;
    const started = performance.now();
    for (let i = 0; i < OPS; i++) await op(i);
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = cpuMsSince(launcher.pid, ticks) / OPS;
    console.log(`  ${label}: ${Math.round(OPS / seconds)}/s, ${cpuMs.toFixed(2)} ms FerretDB CPU each`);
  };

  console.log(`${values.bin}`);
  console.log('by collection size (documents of 2 kB; guarded = filter { _id, version }):');
  for (const size of [100, 1000, 5000]) {
    const c = db.collection<Doc>(`size${size}`);
    await c.insertMany(
      Array.from({ length: size }, (_, i) => ({ _id: `d${i}`, version: 0, pad: 'x'.repeat(2000) })),
    );
    await measure(`${size} documents, findOne by _id`, (i) => c.findOne({ _id: `d${i % size}` }));
    await measure(`${size} documents, find of two _ids by $in`, (i) =>
      c.find({ _id: { $in: [`d${i % size}`, `d${(i + 1) % size}`] } }).toArray(),
    );
    await measure(`${size} documents, guarded updateOne`, (i) =>
      c.updateOne({ _id: `d${i % size}`, version: Math.floor(i / size) }, { $inc: { version: 1 } }),
    );
  }
  console.log(
    'by document shape (a room 30 moves into a game, 100 rooms; guarded findOneAndUpdate of the whole room):',
  );
  for (const [label, shape] of Object.entries(SHAPES)) {
    const c = db.collection<Doc>(label.replace(/\W+/g, '_'));
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: `r${i}`, version: 0, ...shape() })));
    await measure(`${label} (${JSON.stringify(shape()).length} B), findOne`, (i) =>
      c.findOne({ _id: `r${i % 100}` }),
    );
    await measure(`${label}, findOneAndUpdate`, (i) =>
      c.findOneAndUpdate(
        { _id: `r${i % 100}`, version: Math.floor(i / 100) },
        { $set: { ...shape(), version: Math.floor(i / 100) + 1 } },
        { returnDocument: 'after' },
      ),
    );
  }
} finally {
  await client?.close();
  launcher.kill('SIGTERM');
  await new Promise((resolve) => launcher.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}
