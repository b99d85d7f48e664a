#!/usr/bin/env node
// Game-timer benchmark: how late does the timer send a due deadline, with 100,000 pending and two
// timer replicas, and is each sent exactly once?
//
// It starts a throwaway NATS (and the stack's FerretDB, which the timer does not use) and
// --replicas copies of the BUILT game timer (dist/apps/game-timer, as `npm start` runs it)
// through tools/scripts/lib/stack.ts, answers rooms.deadline itself (a stand-in for the rooms
// service that records the arrival time), writes one schedule per room as rooms writes it
// (service-kit's ScheduleStore: the room version in a header, the server asked to fire it 500 ms
// ahead) with a turn timeout that falls due inside a window of --spread-ms, and measures
// lateness = arrival at the rooms stand-in - due time. Every deadline is pending (a message
// schedule in the TIMERS stream) before the first one falls due.
//
// The window: a turn times out 19 s after it starts at the shortest turn (14 s, DECISIONS.md
// "Time": deadline + 4 s, timeout 1 s later), so rooms whose turns started evenly and that all
// time out have their timeouts fall due over 19 s; the default 14 s is a harder load than that.
// Last line: the figures as JSON.
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, headers, JSONCodec, type NatsConnection } from 'nats';
import { parseOptions } from '../scripts/lib/log.ts';
import { startStack, type Stack } from '../scripts/lib/stack.ts';
import { makeThrowawayDir } from '../scripts/lib/throwaway.ts';
import { samples } from './lib/metrics.ts';
import { loadAverage, machineSummary } from './lib/procs.ts';
import { summarize } from './lib/stats.ts';

const { values } = parseOptions(
  'Usage: npm run bench:timer   (builds the game timer first)\n' +
    '       node tools/bench/timer-bench.ts [--rooms 100000] [--spread-ms 14000] [--replicas 2]',
  {
    rooms: { type: 'string', default: '100000' },
    'spread-ms': { type: 'string', default: '14000' },
    replicas: { type: 'string', default: '2' },
  },
);
const ROOMS = Number(values.rooms);
const SPREAD_MS = Number(values['spread-ms']);
const REPLICAS = Number(values.replicas);

/** TIMER_SCHEDULE_LEAD_MS's default: the server fires a schedule this long before its deadline. */
const LEAD_MS = 500;
/** Schedules written at a time. */
const WRITERS = 1000;

/**
 * A room's schedule message as rooms writes it for a running turn: its timeout, due at `dueMs`,
 * then its abandonment 59 s later (sent only if the timeout no longer applies).
 */
function schedule(roomId: string, dueMs: number) {
  const h = headers();
  h.set('Oasis-Room-Version', '2');
  h.set('Nats-Schedule', `@at ${new Date(dueMs - LEAD_MS).toISOString()}`);
  h.set('Nats-Schedule-Target', `timer.fired.${roomId}`);
  const deadlines = [
    { kind: 'turn', dueAtMs: dueMs, gameNumber: 1, moveIndex: 0 },
    { kind: 'abandoned', dueAtMs: dueMs + 59_000, gameNumber: 1, moveIndex: 0 },
  ];
  return { headers: h, data: JSON.stringify({ roomId, version: 2, deadlines }) };
}

/** The i-th room's id, as long as a room's (an ObjectId's 24 hex digits). */
const roomIdOf = (i: number) => `be${i.toString(16).padStart(22, '0')}`;

// Its own directory, like the other runners': a run killed before it stops its stack is reaped by the next.
const { dir, runDir, dataDir } = await makeThrowawayDir('oasis-timer-bench-', 'timer-bench.ts');
let stack: Stack | undefined;
let nc: NatsConnection | undefined;
// The services and servers run detached: stop them on Ctrl-C or a kill too, not only at the end.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the benchmark stack`);
    void Promise.resolve(stack?.stop())
      .catch(() => undefined)
      .finally(() => rm(dir, { recursive: true, force: true }).finally(() => process.exit(130)));
  });
}
try {
  const load = () => loadAverage().join(' ');
  console.log(`machine: ${machineSummary()}, load average ${load()}`);
  // Every replica is a copy of the same build sharing NATS (the TIMERS stream and its consumers).
  stack = await startStack({
    apps: Array.from({ length: REPLICAS }, () => 'game-timer'),
    portsMode: 'free',
    runDir,
    dataDir,
    onLine: (app, line) => {
      if (/"level":"(warn|error|fatal)"/.test(line)) console.log(`  [${app}] ${line}`);
    },
  });
  if (stack.skipped.length)
    throw new Error('dist/apps/game-timer is missing: run npx nx build game-timer first');
  nc = await connect({ servers: stack.infra.nats.url });
  const codec = JSONCodec();

  const dueAt = new Map<string, number>();
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const sub = nc.subscribe('rooms.deadline', { queue: 'rooms' });
  void (async () => {
    for await (const msg of sub) {
      const at = Date.now();
      const packet = codec.decode(msg.data) as { id: string; data: { roomId: string } };
      const roomId = packet.data.roomId;
      if (arrivals.has(roomId)) duplicates++;
      else arrivals.set(roomId, at);
      msg.respond(codec.encode({ id: packet.id, response: { applied: true }, isDisposed: true }));
    }
  })();

  // Write the schedules; every deadline falls due after they are all written.
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  // TIMERS as rooms creates it: its default max_bytes must hold every schedule, as the stream
  // discards the oldest beyond it (each dropped one would be missing from `fired`).
  // Time to write them all before the first falls due: 10 s, and 1 ms per room (several times
  // what writing takes; checked below).
  const firstDue = Date.now() + 10_000 + ROOMS;
  const publishStarted = Date.now();
  let next = 0;
  // WRITERS at a time, as rooms writes each room's on its own: all at once, the acks of the last
  // ones come after the client's request timeout.
  const writer = async () => {
    for (let i = next++; i < ROOMS; i = next++) {
      const roomId = roomIdOf(i);
      const due = firstDue + Math.floor((i * SPREAD_MS) / ROOMS);
      dueAt.set(roomId, due);
      const { headers: h, data } = schedule(roomId, due);
      await js.publish(`timer.schedules.${roomId}`, data, { headers: h, expect: { lastSubjectSequence: 0 } });
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITERS, ROOMS) }, writer));
  const ingested = Date.now();
  const { state, config } = await jsm.streams.info('TIMERS');
  if (state.messages !== ROOMS) throw new Error(`${state.messages} schedules in TIMERS, not ${ROOMS}`);
  if (ingested >= firstDue - LEAD_MS)
    throw new Error(`writing took ${ingested - publishStarted} ms: some fired before all were pending`);
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  console.log(
    `wrote ${ROOMS} room schedules in ${ingested - publishStarted} ms; ${state.messages} schedules pending ` +
      `(${mib(state.bytes)} of the stream's ${mib(config.max_bytes)}), ` +
      `due from +${firstDue - ingested} ms over ${SPREAD_MS} ms (${REPLICAS} timer replica${REPLICAS > 1 ? 's' : ''})`,
  );

  const lastDue = firstDue + SPREAD_MS;
  while (arrivals.size < ROOMS && Date.now() < lastDue + 15_000) await sleep(100);
  await sleep(1000);

  console.log(`load average after the run: ${load()}`);
  const lateness = [...arrivals].map(([roomId, at]) => at - (dueAt.get(roomId) as number));
  const early = lateness.filter((ms) => ms < 0).length;
  const late = summarize(lateness);
  console.log(`fired ${arrivals.size}/${ROOMS}, duplicates ${duplicates}, early ${early}`);
  if (lateness.length) {
    console.log(
      `lateness ms: p50 ${late.p50}  p95 ${late.p95}  p99 ${late.p99}  max ${late.max}  min ${Math.min(...lateness)}`,
    );
  }
  // The timers' own view (their /metrics): when they sent each deadline, before the NATS hop; how
  // many each sent; the CPU each used over the whole run (process start included).
  const timers = stack.apps.filter((a) => a.name === 'game-timer');
  const scraped = await Promise.all(
    timers.map((t) => fetch(`${t.url}/metrics`).then(async (r) => samples(await r.text()))),
  );
  /** The sum of a replica's samples of a metric whose labels include `labels` (e.g. { kind: 'turn' }). */
  const sample = (replica: ReturnType<typeof samples>, name: string, labels: Record<string, string> = {}) =>
    replica
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);
  const les = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
  const buckets = les.map(
    (le) =>
      `<=${le}s: ${scraped.reduce((sum, replica) => sum + sample(replica, 'oasis_timer_fire_lateness_seconds_bucket', { le: String(le), kind: 'turn' }), 0)}`,
  );
  console.log(`timers' send lateness (cumulative, both replicas): ${buckets.join(', ')}`);
  // How long after their schedules' time (due - lead) the server's fired deadlines reached the timers.
  const delays = [0.1, 0.25, 0.4, 0.5, 0.75, 1].map(
    (le) =>
      `<=${le}s: ${scraped.reduce((sum, replica) => sum + sample(replica, 'oasis_timer_fired_delay_seconds_bucket', { le: String(le) }), 0)}`,
  );
  console.log(`fired by the server after their time (cumulative, lead ${LEAD_MS} ms): ${delays.join(', ')}`);
  const sent = scraped.map((replica) =>
    sample(replica, 'oasis_timer_deadlines_total', { outcome: 'applied' }),
  );
  const cpu = scraped.map((replica) => sample(replica, 'process_cpu_seconds_total'));
  console.log(
    `deadlines sent per replica: ${sent.join(' + ')}; CPU per replica: ${cpu.map((s) => `${s.toFixed(2)} s`).join(', ')}`,
  );
  const ok = arrivals.size === ROOMS && duplicates === 0 && early === 0 && (late.p99 ?? Infinity) <= 250;
  console.log(ok ? 'PASS: every deadline once, p99 within 250 ms' : 'FAIL: target not met');
  console.log(
    JSON.stringify({
      bench: 'timer',
      rooms: ROOMS,
      replicas: REPLICAS,
      spreadMs: SPREAD_MS,
      fired: arrivals.size,
      duplicates,
      early,
      p50Ms: late.p50,
      p95Ms: late.p95,
      p99Ms: late.p99,
      maxMs: late.max,
      sentPerReplica: sent,
      cpuSecondsPerReplica: cpu.map((s) => Number(s.toFixed(2))),
      pass: ok,
    }),
  );
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  console.error(`timer benchmark failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await nc?.close().catch(() => undefined);
  await stack?.stop().catch((error) => console.error(`stopping: ${error.message}`));
  await rm(dir, { recursive: true, force: true });
}
