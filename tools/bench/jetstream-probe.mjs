#!/usr/bin/env node
// What a move costs when it is appended to JetStream instead of written to the database: the
// measurement behind lever 3 of issue 13 ("the database off the hot path"), taken before building
// it. Starts nats-server and the FerretDB launcher (.tools/bin, as `npm run infra` does) with a
// throwaway store, and prints:
//   1. a move appended to its room's subject with Nats-Expected-Last-Subject-Sequence (the per-room
//      optimistic lock), as fast as it goes and paced at the goal's 900 moves/s: appends per
//      second, ack round trip, and the CPU of nats-server and of the publishing client per move;
//   2. the same with the whole room as the payload (what room.updated carries today), for size;
//   3. the lock itself: two publishers racing with the same expected sequence, one must lose;
//   4. the projection: guarded room writes to FerretDB one at a time, against one bulkWrite per
//      batch of rooms (what a consumer coalescing per room would send), FerretDB CPU per room.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { connect, JSONCodec } from 'nats';
import { startInfra, stopInfra } from '../scripts/lib/infra.mjs';
import { parseOptions } from '../scripts/lib/log.mjs';
import { cpuMsSince, cpuTicks } from './lib/procs.mjs';
import { round, summarize } from './lib/stats.mjs';

const { values } = parseOptions(
  'Usage: node tools/bench/jetstream-probe.mjs [--rooms 1000] [--moves 20000] [--paced-seconds 10]',
  {
    rooms: { type: 'string', default: '1000' },
    moves: { type: 'string', default: '20000' },
    'paced-seconds': { type: 'string', default: '10' },
  },
);
const ROOMS = Number(values.rooms);
const MOVES = Number(values.moves);
const PACED_SECONDS = Number(values['paced-seconds']);
const GOAL_MOVES_PER_SECOND = 900;
const json = JSONCodec();

/** A move as the room's log would hold it: the intent as judged, and what it changed. */
const moveEvent = (room, index) => ({
  roomId: `r${room}`,
  gameNumber: 1,
  index,
  player: index % 2 ? 'player2' : 'player1',
  number: 5,
  option: 'plain',
  aiNumber: 3,
  total: index * 6,
  at: Date.now(),
  version: index + 2,
});
/** The whole room 30 moves into a game, as room.updated carries it today. */
const wholeRoom = (room, index) => ({
  _id: `r${room}`,
  version: index + 2,
  players: [
    { id: 'a'.repeat(24), name: 'player one' },
    { id: 'b'.repeat(24), name: 'player two' },
  ],
  whosTurn: { currentNumber: index * 6, moves: Array.from({ length: 30 }, (_, i) => moveEvent(room, i)) },
});

const clientCpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * Appends `moves` moves spread over `rooms` rooms; each room appends its next move only when the
 * previous one is acknowledged (a room's moves are serial), all rooms at once. With `perSecond`,
 * moves start on a schedule instead of as fast as acks come back.
 */
async function appendMoves(js, server, { subject, payload, moves, rooms, perSecond }) {
  const last = new Array(rooms).fill(0);
  const latencies = [];
  let conflicts = 0;
  let next = 0;
  const started = performance.now();
  const serverTicks = cpuTicks(server.pid);
  const client = process.cpuUsage();
  const room = async (r) => {
    for (let i = 0; ; i++) {
      const n = next++;
      if (n >= moves) return;
      if (perSecond) {
        const due = started + (n / perSecond) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const t0 = performance.now();
      try {
        const ack = await js.publish(`${subject}.r${r}`, json.encode(payload(r, i)), {
          expect: { lastSubjectSequence: last[r] },
        });
        last[r] = ack.seq;
      } catch {
        conflicts++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: rooms }, (_, r) => room(r)));
  const seconds = (performance.now() - started) / 1000;
  const rtt = summarize(latencies);
  return {
    movesPerSec: round(moves / seconds, 0),
    ackP50Ms: round(rtt.p50, 2),
    ackP99Ms: round(rtt.p99, 2),
    natsCpuPerMoveMs: round(cpuMsSince(server.pid, serverTicks) / moves, 3),
    clientCpuPerMoveMs: round(clientCpuMs(client) / moves, 3),
    refused: conflicts,
  };
}

/** Two publishers append to the same room with the same expected sequence: exactly one may win. */
async function race(js, rooms) {
  let exactlyOne = 0;
  for (let r = 0; r < rooms; r++) {
    const subject = `probe.race.r${r}`;
    const first = await js.publish(subject, json.encode({ n: 0 }), { expect: { lastSubjectSequence: 0 } });
    const attempt = (who) =>
      js
        .publish(subject, json.encode({ who }), { expect: { lastSubjectSequence: first.seq } })
        .then(() => 1)
        .catch(() => 0);
    const won = (await Promise.all([attempt('a'), attempt('b')])).reduce((a, b) => a + b, 0);
    if (won === 1) exactlyOne++;
  }
  return exactlyOne;
}

async function projection(db, launcher, rooms) {
  const collection = db.collection('rooms');
  // As rooms stores a room today: the game state as JSON text (docs/benchmarks.md, FerretDB findings).
  const doc = (r, version) => {
    const room = wholeRoom(r, version);
    return { ...room, whosTurn: JSON.stringify(room.whosTurn), _id: `r${r}`, version };
  };
  await collection.insertMany(Array.from({ length: rooms }, (_, r) => doc(r, 0)));
  const measure = async (label, write) => {
    const ticks = cpuTicks(launcher.pid);
    const started = performance.now();
    try {
      await write();
    } catch (error) {
      console.log(`  ${label}: failed (${error.name}: ${error.message})`);
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    const perRoom = cpuMsSince(launcher.pid, ticks) / rooms;
    console.log(
      `  ${label}: ${Math.round(rooms / seconds)} rooms/s, ${perRoom.toFixed(3)} ms FerretDB CPU per room`,
    );
  };
  await measure(`${rooms} guarded updates, one at a time`, async () => {
    for (let r = 0; r < rooms; r++) {
      await collection.updateOne({ _id: `r${r}`, version: 0 }, { $set: doc(r, 1) });
    }
  });
  for (const [k, batch] of [25, 100].entries()) {
    const from = k + 1;
    await measure(`${rooms} guarded updates, bulkWrite of ${batch}`, async () => {
      for (let r = 0; r < rooms; r += batch) {
        const ops = [];
        for (let k = r; k < Math.min(rooms, r + batch); k++) {
          ops.push({
            updateOne: { filter: { _id: `r${k}`, version: from }, update: { $set: doc(k, from + 1) } },
          });
        }
        const result = await collection.bulkWrite(ops, { ordered: false });
        if (result.modifiedCount !== ops.length) throw new Error(`bulkWrite changed ${result.modifiedCount}`);
      }
    });
  }
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'oasis-jetstream-probe-'));
const runDir = path.join(dir, 'run');
let nc;
let mongo;
try {
  const infra = await startInfra({ runDir, dataDir: path.join(dir, 'data'), portsMode: 'free' });
  const [server, launcher] = [infra.nats, infra.mongo];
  nc = await connect({ servers: server.url });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'], storage: 'file', max_msgs_per_subject: 300 });
  const js = nc.jetstream();
  console.log(
    `machine: ${os.cpus().length} cores, Node ${process.version}; ${ROOMS} rooms, ${MOVES} moves per case, ` +
      `JetStream file storage`,
  );
  const cases = [
    ['move event', 'probe.move', moveEvent],
    ['whole room', 'probe.room', wholeRoom],
  ];
  const figures = {};
  for (const [label, subject, payload] of cases) {
    const size = JSON.stringify(payload(0, 30)).length;
    const fast = await appendMoves(js, server, {
      subject: `${subject}.fast`,
      payload,
      moves: MOVES,
      rooms: ROOMS,
    });
    console.log(
      `${label} (${size} B) appended with the expected last subject sequence, as fast as acks come:`,
    );
    console.log(`  ${JSON.stringify(fast)}`);
    const paced = await appendMoves(js, server, {
      subject: `${subject}.paced`,
      payload,
      moves: GOAL_MOVES_PER_SECOND * PACED_SECONDS,
      rooms: ROOMS,
      perSecond: GOAL_MOVES_PER_SECOND,
    });
    console.log(`  paced at ${GOAL_MOVES_PER_SECOND} moves/s: ${JSON.stringify(paced)}`);
    figures[label] = { size, fast, paced };
  }
  const races = 200;
  const exactlyOne = await race(js, races);
  console.log(
    `the lock: ${races} races of two publishers with the same expected sequence, ${exactlyOne} won by exactly one`,
  );

  mongo = await MongoClient.connect(`${launcher.url}/probe`);
  console.log(
    `projection: the whole room (${JSON.stringify(wholeRoom(0, 30)).length} B) written to FerretDB as rooms ` +
      'stores it (game state as JSON text), by a consumer that writes rooms one by one or in batches',
  );
  await projection(mongo.db('probe'), launcher, ROOMS);
  console.log(
    JSON.stringify({
      movePerSec: figures['move event'].fast.movesPerSec,
      moveNatsCpuMs: figures['move event'].paced.natsCpuPerMoveMs,
      moveClientCpuMs: figures['move event'].paced.clientCpuPerMoveMs,
      moveAckP99Ms: figures['move event'].paced.ackP99Ms,
      racesWonByExactlyOne: `${exactlyOne}/${races}`,
    }),
  );
} finally {
  await nc?.close();
  await mongo?.close();
  await stopInfra({ runDir });
  await rm(dir, { recursive: true, force: true });
}
