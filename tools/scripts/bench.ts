#!/usr/bin/env node
// `npm run bench`: how many games one machine holds, and where the time goes.
//
//   1. Uses the stack at --url, or the one `npm start` runs at http://127.0.0.1:$PORT (8080) if it
//      answers; otherwise builds and starts the stack as `npm start` does (startThrowawayStack()),
//      on free ports with throwaway run and data directories, with the gateway's limits raised
//      (SHARED_ADDRESS_LIMITS: logins, registrations, per-user writes, streams per address) since
//      every bot plays from 127.0.0.1. --fresh always starts one.
//   2. Climbs a ladder of concurrent games (100, 250, 500, 1,000, 2,000 by default). Each game is
//      two bot players: real HTTP clients of the gateway with a live SSE stream of their room,
//      playing legal moves (plain and Oasis options, per libs/game-rules usableOptions) a think
//      time after the push says it is their turn, and pressing Play Again when a game ends. Games
//      stay on from one step to the next; each step adds games, warms up, then measures for
//      --duration seconds: moves/s; the move round trip (move sent -> the OPPONENT's stream
//      receives the room version containing it) at p50/p95/p99; errors of every kind; CPU and RSS
//      of every process (a service's from its own /metrics, process_cpu_seconds_total and
//      process_resident_memory_bytes; NATS's, FerretDB's and the bench's from /proc); the
//      services' own histograms; NATS messages and bytes per move (its /varz), then, in a 5 s
//      census after the window, what each message is for. The ladder stops at the first step with
//      errors or a p99 above --max-p99.
//   3. The floor (tools/bench/lib/floor.ts): as many moves as the largest step held made, over as
//      many games, in this process with no HTTP: each validated, applied with libs/game-rules,
//      appended to its room's subject with Nats-Expected-Last-Subject-Sequence (the room log's
//      stream settings, NATS_STREAM_REPLICAS replicas) and its push published on core NATS, against
//      the same NATS. The old floor (libs/game-rules + one guarded FerretDB write per move) is
//      printed beside it.
//   4. With --peer colyseus, the same ladder against the peer (tools/bench/peer-colyseus): the same
//      game on Colyseus in one process, in memory, driven by the same bot logic over Colyseus's
//      client; both ladders side by side (moves/s, p99, CPU per move). The stack is stopped first.
//   5. Timer lateness with 10,000 pending deadlines and 2 timer replicas (tools/bench/timer-bench.ts, its own stack).
// The last line of the output is one JSON object for the largest load held with 0 errors, with
// cpuPerMoveMs (every stack process, at the step the floor was measured against),
// floorCpuPerMoveMs (the floor in the same run), oldFloorCpuPerMoveMs, and with --peer the peer's
// peerMovesPerSec, peerP99Ms and peerCpuPerMoveMs at the same number of games (else its largest held).
//
// Usage: npm run bench -- [options]      (all optional)
//   --steps 100,250,500,1000,2000   games per ladder step
//   --duration 60                   seconds measured per step
//   --warmup 15                     seconds between a step's ramp-up and its measurement
//   --think 1000                    think time in ms (each bot: think * (1 ± jitter))
//   --jitter 0.2                    think-time spread
//   --turn 32                       the rooms' turn duration in seconds (14, 32, 60 or 300)
//   --max-p99 1000                  a step whose p99 round trip exceeds this (ms) is not held
//   --moves socket                  how bots send moves and Play Again: socket (each player's room
//                                   socket, as the web app does) or http (PATCH .../edit each)
//   --url http://host:port          use this running stack (nothing is built or started)
//   --fresh                         start a throwaway stack even if one answers on $PORT/8080
//   --no-build                      use what is built
//   --no-floor, --no-timer          skip those parts
//   --arena                         also an event-9 arena of bot players on its own stack
//                                   (tools/bench/arena-bench.ts): pairing latency p50/p99, games
//   --arena-players 500, --arena-minutes 5   its size and length
//   --peer colyseus                 also climb the ladder on the peer
//   --timer-rooms 10000             pending deadlines for the timer part
//   --profile                       CPU profiles of every service and FerretDB for every step's
//                                   window (.artifacts/bench/profiles; summarize with
//                                   node tools/bench/profile-summary.ts <files>, and FerretDB's
//                                   with go tool pprof -top <file>)
//   --mongo-url mongodb://host:port the FerretDB for the old floor when --url's cannot be found
//   --nats-url nats://host:port     the NATS for the floor when --url's cannot be found
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotView } from '@oasis198/game-rules';
import { measureFloor } from '../bench/lib/floor.ts';
import { measureOldFloor } from '../bench/lib/old-floor.ts';
import { PeerFleet } from '../bench/peer-colyseus/bots.ts';
import { startPeer } from '../bench/peer-colyseus/process.ts';
import { diffMetrics, processUsage, rssOf, scrapeAll } from '../bench/lib/metrics.ts';
import { natsCensus } from '../bench/lib/nats-census.ts';
import { ProcessSampler, discoverContainers, loadAverage } from '../bench/lib/procs.ts';
import { chooseMove } from '../bench/lib/rules.ts';
import { Recorder, round, summarize } from '../bench/lib/stats.ts';
import { enlist, Fleet, GatewayClient, type FleetOptions, type Player } from '../containers/src/players.ts';
import { bold, dim, parseOptions, red, yellow } from './lib/log.ts';
import { freePort, HOST } from './lib/net.ts';
import { forEachLine } from './lib/proc.ts';
import {
  APPS,
  describeStack,
  gatewayPort,
  runningStack,
  SHARED_ADDRESS_LIMITS,
  setupAndBuild,
  type StackRecord,
} from './lib/stack.ts';
import { baseUrl, startThrowawayStack } from './lib/throwaway.ts';
import { ROOT } from './lib/workspace.ts';

const ARTIFACTS = path.join(ROOT, '.artifacts', 'bench');
const PROFILES = path.join(ARTIFACTS, 'profiles');
const PROCESS_ORDER = [...APPS.map((a) => a.name), 'nats', 'ferretdb', 'web', 'bench'];

// ------------------------------------------------------------------------------------------------
// Options: --help prints the comment at the top of this file.

const source = readFileSync(new URL(import.meta.url), 'utf8');
const usage = source.slice(source.indexOf('\n') + 1, source.indexOf('\nimport ')).replace(/^\/\/ ?/gm, '');
const opts = parseOptions(usage, {
  steps: { type: 'string', default: '100,250,500,1000,2000' },
  duration: { type: 'string', default: '60' },
  warmup: { type: 'string', default: '15' },
  think: { type: 'string', default: '1000' },
  jitter: { type: 'string', default: '0.2' },
  turn: { type: 'string', default: '32' },
  'max-p99': { type: 'string', default: '1000' },
  moves: { type: 'string', default: 'socket' },
  url: { type: 'string' },
  fresh: { type: 'boolean', default: false },
  'no-build': { type: 'boolean', default: false },
  'no-floor': { type: 'boolean', default: false },
  'no-timer': { type: 'boolean', default: false },
  arena: { type: 'boolean', default: false },
  'arena-players': { type: 'string', default: '500' },
  'arena-minutes': { type: 'string', default: '5' },
  'timer-rooms': { type: 'string', default: '10000' },
  profile: { type: 'boolean', default: false },
  'mongo-url': { type: 'string' },
  'nats-url': { type: 'string' },
  peer: { type: 'string' },
}).values;
/** `value`, when it is positive; otherwise the run ends with what is wrong with --<name>. */
function positive(name: string, value: number) {
  if (value > 0) return value;
  console.error(red(`--${name} must be a positive number`));
  return process.exit(1);
}
const MOVES = opts.moves;
if (MOVES !== 'socket' && MOVES !== 'http') {
  console.error(red('--moves must be socket or http'));
  process.exit(1);
}
const STEPS = opts.steps
  .split(',')
  .map(Number)
  .filter((n) => n > 0); // Number() trims spaces
positive('steps', STEPS.length);
const DURATION_S = positive('duration', Number(opts.duration));
const WARMUP_S = Number(opts.warmup);
const THINK_MS = positive('think', Number(opts.think));
const MAX_P99 = Number(opts['max-p99']);
/** Seconds of the NATS census after each step's window. */
const CENSUS_S = 5;
/** Moves each floor makes unmeasured before it is measured. */
const WARM_MOVES = 1000;
const GIVEN_URL = opts.url === undefined ? undefined : baseUrl(opts.url, usage);
if (opts.peer !== undefined && opts.peer !== 'colyseus') {
  console.error(red(`--peer: the one peer is colyseus, not ${opts.peer}`));
  process.exit(1);
}

// ------------------------------------------------------------------------------------------------
// Clean-up on every way out

/** The stack this run started (startThrowawayStack), if it started one. */
let own: ReturnType<typeof startThrowawayStack> | undefined;
let fleet: Fleet | undefined;
/** The peer's server and bots, while they run. */
let peer: Awaited<ReturnType<typeof startPeer>> | undefined;
let peerFleet: PeerFleet | undefined;
let interrupted = false;
const abort = new AbortController();
const log = (line = '') => console.log(line);

function onSignal(signal: string) {
  if (interrupted) return;
  interrupted = true;
  console.error(yellow(`\n${signal}: stopping the bots and the stack`));
  abort.abort();
  void own?.stop(); // also cancels a start under way; cleanUp() awaits the same stop
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => onSignal(signal));
// A bug in the bench must still stop the stack it started.
process.on('uncaughtException', (error) => {
  console.error(red(`bench error: ${error.stack}`));
  onSignal('uncaught exception');
});

async function wait(seconds: number) {
  await sleep(seconds * 1000, undefined, { signal: abort.signal }).catch(() => undefined);
  if (interrupted) throw new Error('interrupted');
}

async function cleanUp() {
  if (fleet && !fleet.stopping) await fleet.stop().catch(() => undefined);
  if (peerFleet && !peerFleet.stopping) await peerFleet.stop().catch(() => undefined);
  await peer?.stop();
  await own?.stop();
}

// ------------------------------------------------------------------------------------------------
// The stack

/** Whether a stack answers GET /api/rooms/ at `url` within 2 s. */
const answers = (url: string) =>
  fetch(`${url}/api/rooms/`, { signal: AbortSignal.timeout(2000) }).then(
    (res) => res.ok,
    () => false,
  );

/**
 * The stack the bench measures: its address, its processes by name (a container stack's replicas
 * as a list), the services' metrics addresses, FerretDB's address for the floor, and whether the
 * bench started it.
 */
type BenchedStack = {
  url: string;
  pids: ProcessSampler['pids'];
  metricsUrls: Record<string, string>;
  /** NATS's monitoring endpoint, when known: its traffic per move. */
  natsMonitorUrl?: string;
  /** NATS's client address, for the floor. */
  natsUrl?: string;
  mongoUrl?: string;
  own?: boolean;
};

async function startOwnStack(): Promise<BenchedStack> {
  await setupAndBuild([], { build: !opts['no-build'] });
  if (interrupted) throw new Error('interrupted');
  log(bold('▸ Start the stack (as npm start does; free ports, throwaway data)'));
  if (opts.profile) {
    rmSync(PROFILES, { recursive: true, force: true });
    mkdirSync(PROFILES, { recursive: true });
    process.env.OASIS_CPU_PROFILE_DIR = PROFILES;
    // FerretDB's Go profile of each window, from the launcher's pprof endpoint (go tool pprof -top).
    process.env.FERRETDB_DEBUG_ADDR = `127.0.0.1:${await freePort()}`;
    process.env.NODE_OPTIONS =
      `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(ROOT, 'tools', 'bench', 'profiler.cts')}`.trim();
  }
  // Every bot comes from one address: the gateway runs with SHARED_ADDRESS_LIMITS.
  own = startThrowawayStack({
    prefix: 'oasis-bench-',
    script: 'bench.ts',
    logFile: path.join(ARTIFACTS, 'stack.log'),
    onExit: (app, how) => {
      console.error(red(bold(`\n!!! ${app} ${how} during the bench !!! Its last lines:`)));
      console.error(own?.recent[app]?.join('\n') ?? '(none)');
      onSignal('service died');
    },
  });
  const stack = await own.starting;
  if (opts.profile) delete process.env.NODE_OPTIONS;
  return { ...benchedStack(describeStack(stack)), own: true };
}

/**
 * A stack startStack() runs, from its record (stack.ts describeStack): every service, NATS and
 * FerretDB by pid, each service's metrics on its own port.
 */
function benchedStack(record: StackRecord, mongoUrl = record.mongo.url): BenchedStack {
  const pids = Object.fromEntries(record.apps.map((a) => [a.name, a.pid]));
  return {
    url: record.url as string,
    pids: { ...pids, nats: record.nats.pid, ferretdb: record.mongo.pid },
    metricsUrls: Object.fromEntries(record.apps.map((a) => [a.name, `http://${HOST}:${a.port}`])),
    natsMonitorUrl: record.nats.monitorUrl,
    natsUrl: opts['nats-url'] ?? record.nats.url,
    mongoUrl,
  };
}

/** Whether two addresses name the same port of this machine. */
function samePortHere(a: string, b: string) {
  const [x, y] = [new URL(a), new URL(b)];
  const local = (u: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  return local(x) && local(y) && x.port === y.port;
}

function useRunningStack(url: string): BenchedStack {
  // The stack `npm start` runs (its record in .run/stack.json), when it is the one at `url`.
  const record = runningStack();
  if (record?.apps.length && samePortHere(record.url as string, url)) {
    return { ...benchedStack(record, opts['mongo-url'] ?? record.mongo.url), url };
  }
  // The container stack (npm run stack:containers): CPU and memory per service, replicas summed;
  // the services' own metrics stay inside the stack's network, so none are scraped.
  const containers = discoverContainers();
  if (Object.keys(containers.pids).length) {
    log(
      dim(`  the container stack: ${JSON.stringify(containers.replicas)} (replicas; CPU and memory summed)`),
    );
    return {
      url,
      pids: containers.pids,
      metricsUrls: {},
      mongoUrl: opts['mongo-url'],
      natsUrl: opts['nats-url'],
    };
  }
  return {
    url,
    pids: {},
    metricsUrls: { gateway: url },
    mongoUrl: opts['mongo-url'],
    natsUrl: opts['nats-url'],
  };
}

// ------------------------------------------------------------------------------------------------
// One ladder step

/**
 * Waits until the machine is nearly idle again (busy below 30 % over 2 s, at most 2 min): what a
 * step leaves behind (deleted rooms, the timer's and rewards' queues) must not weigh on the next.
 */
async function settle() {
  const started = Date.now();
  let busy = 100;
  while (busy >= 30 && Date.now() - started < 120_000) {
    const machine = new ProcessSampler({});
    machine.start();
    await wait(2);
    busy = machine.stop().machineBusyPct;
  }
  log(
    dim(`  settled in ${Math.round((Date.now() - started) / 1000)} s (machine busy ${Math.round(busy)} %)`),
  );
}

/** What the ladder's steps share: the figures, this process's event-loop delay and the bots so far. */
const recorder = new Recorder();
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
const players: Player[] = [];
const fleetOptions: FleetOptions = {
  thinkMs: THINK_MS,
  jitter: Number(opts.jitter),
  duration: Number(opts.turn),
  // The gateway's rooms carry the Oasis counts too (contracts' room schema), unlike RoomView.
  chooseMove: (whosTurn, seat) => chooseMove(whosTurn as typeof whosTurn & BotView, seat),
  socket: MOVES === 'socket',
};

async function runStep(target: number, stack: BenchedStack, client: GatewayClient) {
  recorder.resetErrors();
  const load = loadAverage();
  log(bold(`\n▸ ${target} games`) + dim(`  (load average ${load.join(' ')})`));
  let started = Date.now();
  const missing = 2 * target - players.length;
  if (missing > 0) {
    const first = players.length + 1;
    const more = await enlist(
      client,
      Array.from({ length: missing }, (_, i) => `bot${String(first + i).padStart(5, '0')}`),
      // Logging in first also on a new stack: a registration answered 5xx under load may have been
      // made, and its retry would be refused as a duplicate.
      { loginFirst: true, onError: (kind, detail) => recorder.error(kind, detail) },
    );
    players.push(...more);
    log(
      dim(
        `  ${more.length} more bot players ${stack.own ? 'registered' : 'logged in or registered'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ),
    );
  }
  started = Date.now();
  const pairs: [Player, Player][] = [];
  for (let i = 0; i < target; i++) pairs.push([players[2 * i], players[2 * i + 1]] as [Player, Player]);
  fleet = new Fleet(recorder, fleetOptions);
  const failures = await fleet.add(pairs);
  log(
    dim(
      `  ${pairs.length - failures.length}/${pairs.length} games opened in ${((Date.now() - started) / 1000).toFixed(1)} s; warming up ${WARMUP_S} s`,
    ),
  );
  await wait(WARMUP_S);

  const before = await scrapeAll(stack.metricsUrls);
  const scrapedAt = performance.now();
  // A service's CPU and memory come from its own metrics (prom-client's process_* metrics); /proc
  // only for what has none: NATS, FerretDB, the bench, and services whose metrics did not answer.
  const metered = Object.keys(stack.metricsUrls).filter((name) => rssOf(before[name]) !== null);
  const sampler = new ProcessSampler({
    ...Object.fromEntries(Object.entries(stack.pids).filter(([name]) => !metered.includes(name))),
    bench: process.pid,
  });
  const peakRss: Record<string, number> = {};
  const meteredUrls = Object.fromEntries(metered.map((name) => [name, stack.metricsUrls[name] as string]));
  const samplePeaks = async () => {
    for (const [name, metrics] of Object.entries(await scrapeAll(meteredUrls))) {
      peakRss[name] = Math.max(peakRss[name] ?? 0, rssOf(metrics) ?? 0);
    }
  };
  const natsBefore = await natsTraffic(stack.natsMonitorUrl);
  if (opts.profile && stack.own) signalProfilers(stack, `games-${target}`);
  const ferretProfile = opts.profile && stack.own ? profileFerretDB(`games-${target}`) : undefined;
  loopDelay.reset();
  sampler.start();
  recorder.open();
  let ticks = 0;
  // The services' memory peaks every 10 s: a scrape costs them more than a /proc read.
  const sampling = setInterval(() => {
    sampler.sample();
    if (++ticks % 5 === 0) void samplePeaks();
  }, 2000);
  const errorsBefore = recorder.errorCount;
  log(dim(`  measuring ${DURATION_S} s ...`));
  await wait(DURATION_S);
  clearInterval(sampling);
  const window = recorder.close();
  const sampled = sampler.stop();
  const after = await scrapeAll(stack.metricsUrls);
  const scrapedSeconds = (performance.now() - scrapedAt) / 1000;
  const usage = {
    ...sampled,
    processes: {
      ...sampled.processes,
      ...Object.fromEntries(
        metered.flatMap((name) => {
          const used = processUsage(before[name], after[name], scrapedSeconds, peakRss[name]);
          return used ? [[name, used]] : [];
        }),
      ),
    },
  };
  if (opts.profile && stack.own) signalProfilers(stack, `games-${target}`);
  await ferretProfile;
  const natsAfter = await natsTraffic(stack.natsMonitorUrl);
  // Then, outside the window (the census's subscriber adds to NATS's counters), what each message is for.
  let census;
  if (stack.natsUrl) {
    recorder.open();
    const counted = await natsCensus(stack.natsUrl, CENSUS_S).catch(() => undefined);
    const moves = recorder.close().moves;
    if (counted && moves) {
      census = {
        moves,
        rows: counted.rows.map((row) => ({
          what: row.what,
          msgsPerMove: round(row.msgs / moves, 2),
          bytesPerMove: round(row.bytes / moves, 0),
        })),
      };
    }
  }
  // Every step starts from no games: stop the bots and delete their rooms (memberships go with them).
  await fleet.stop({ deleteRooms: true });
  await settle();
  const rtt = summarize(window.rtt);
  const patch = summarize(window.patch);
  const errorCount = recorder.errorCount;
  const stackCpu = Object.entries(usage.processes)
    .filter(([name]) => name !== 'bench')
    .reduce((sum, [, u]) => sum + (u.cpuSeconds ?? 0), 0);
  const result = {
    games: target,
    gamesOpened: pairs.length - failures.length,
    loadBefore: load,
    seconds: round(window.seconds, 1),
    moves: window.moves,
    movesPerSec: round(window.moves / window.seconds, 1),
    optionMoves: window.optionMoves,
    randomMoves: window.randomMoves,
    gamesFinished: window.games,
    roundTrips: rtt.count,
    p50Ms: round(rtt.p50),
    p95Ms: round(rtt.p95),
    p99Ms: round(rtt.p99),
    maxMs: round(rtt.max),
    patchP50Ms: round(patch.p50),
    patchP99Ms: round(patch.p99),
    errors: errorCount,
    errorsInWindow: errorCount - errorsBefore,
    errorKinds: Object.fromEntries(recorder.errors),
    errorExamples: Object.fromEntries(recorder.examples),
    benchLoopDelayP99Ms: round(loopDelay.percentile(99) / 1e6),
    machineBusyPct: round(usage.machineBusyPct),
    processes: Object.fromEntries(
      Object.entries(usage.processes).map(([name, u]) => [
        name,
        {
          cpuPct: round(u.cpuPct),
          rssMb: round(u.rssMb, 0),
          peakRssMb: round(u.peakRssMb, 0),
          cpuSeconds: round(u.cpuSeconds, 2),
        },
      ]),
    ),
    services: Object.fromEntries(
      Object.keys(stack.metricsUrls).map((name) => [name, diffMetrics(before[name], after[name])]),
    ),
    stackCpuMsPerMove: window.moves ? round((1000 * stackCpu) / window.moves, 2) : null,
    natsPerMove: perMove(natsBefore, natsAfter, window.moves),
    natsCensus: census,
    held: errorCount === 0 && rtt.count > 0 && (rtt.p99 ?? Infinity) <= MAX_P99 && failures.length === 0,
  };
  printStep(result);
  return result;
}

type StepResult = Awaited<ReturnType<typeof runStep>>;

type NatsTraffic = { in_msgs: number; out_msgs: number; in_bytes: number; out_bytes: number };

/** NATS's message and byte counters (its /varz), or undefined when it has no known monitoring endpoint. */
const natsTraffic = async (monitorUrl: string | undefined): Promise<NatsTraffic | undefined> =>
  monitorUrl
    ? fetch(`${monitorUrl}/varz`)
        .then((res) => res.json() as Promise<NatsTraffic>)
        .catch(() => undefined)
    : undefined;

/** What NATS carried per move between two readings of its counters. */
function perMove(before: NatsTraffic | undefined, after: NatsTraffic | undefined, moves: number) {
  if (!before || !after || !moves) return null;
  const per = (key: keyof NatsTraffic, unit = 1) => round((after[key] - before[key]) / unit / moves, 2);
  return {
    inMsgs: per('in_msgs'),
    outMsgs: per('out_msgs'),
    inKb: per('in_bytes', 1024),
    outKb: per('out_bytes', 1024),
  };
}

function signalProfilers(stack: BenchedStack, label: string) {
  writeFileSync(path.join(PROFILES, 'label'), `${label}\n`);
  for (const { name } of APPS) {
    try {
      process.kill(stack.pids[name] as number, 'SIGUSR2');
    } catch {
      // gone, or not started
    }
  }
}

/** FerretDB's CPU profile over the measured window, into PROFILES (best effort). */
async function profileFerretDB(label: string) {
  const url = `http://${process.env.FERRETDB_DEBUG_ADDR}/debug/pprof/profile?seconds=${DURATION_S}`;
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout((DURATION_S + 30) * 1000) });
    writeFileSync(path.join(PROFILES, `${label}-ferretdb.pprof`), Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    log(yellow(`  FerretDB profile not taken: ${(error as Error).message}`));
  }
}

function printStep(r: StepResult) {
  log(
    `  ${r.movesPerSec} moves/s (${r.moves} moves, ${r.optionMoves} with an option, ${r.gamesFinished} games finished); ` +
      `round trip p50 ${r.p50Ms} / p95 ${r.p95Ms} / p99 ${r.p99Ms} / max ${r.maxMs} ms; answer p50 ${r.patchP50Ms} / p99 ${r.patchP99Ms} ms`,
  );
  log(
    `  errors: ${r.errors}${r.errors ? ` ${JSON.stringify(r.errorKinds)}` : ''}; machine busy ${r.machineBusyPct} %; ` +
      `stack CPU ${r.stackCpuMsPerMove} ms per move; bench event-loop delay p99 ${r.benchLoopDelayP99Ms} ms`,
  );
  const nats = r.natsPerMove;
  if (nats) {
    log(
      `  NATS per move: ${nats.inMsgs} messages in, ${nats.outMsgs} out; ${nats.inKb} kB in, ${nats.outKb} kB out`,
    );
  }
  if (r.natsCensus) {
    const rows = r.natsCensus.rows.filter((row) => (row.msgsPerMove ?? 0) >= 0.01);
    const total = rows.reduce((sum, row) => sum + (row.msgsPerMove ?? 0), 0);
    log(
      dim(
        `  NATS messages per move by purpose (${CENSUS_S} s census, ${r.natsCensus.moves} moves; ${round(total, 2)} in all, payload bytes): ` +
          rows.map((row) => `${row.what} ${row.msgsPerMove} (${row.bytesPerMove} B)`).join('; '),
      ),
    );
  }
  for (const [kind, example] of Object.entries(r.errorExamples)) log(dim(`    e.g. ${kind}: ${example}`));
  log(
    '  ' +
      PROCESS_ORDER.filter((n) => r.processes[n])
        .map((n) => `${n} ${r.processes[n]?.cpuPct}% ${r.processes[n]?.peakRssMb} MB`)
        .join(' | '),
  );
  for (const [name, diff] of Object.entries(r.services)) {
    if (!diff) continue;
    const top = diff.rows
      .slice(0, 4)
      .map((row) => `${row.what}: ${row.count} x ${round(row.meanMs, 1)} ms (p99 <= ${row.p99LeMs} ms)`)
      .join('; ');
    log(dim(`    ${name} (loop lag p99 ${round(diff.loopLagP99Ms, 1)} ms): ${top}`));
    const database = diff.rows.filter((row) => row.what.startsWith('DB ') && r.moves);
    if (database.length) {
      const perMove = database.map((row) => `${row.what.slice(3)} ${round(row.count / r.moves, 2)}`);
      log(dim(`    ${name} database commands per move: ${perMove.join(', ')}`));
    }
  }
}

/**
 * Timer lateness with `rooms` pending deadlines and 2 timer replicas: tools/bench/timer-bench.ts on
 * its own throwaway stack, its lines shown as they come. Resolves its figures (its JSON line), {}
 * when it failed before measuring.
 */
async function runTimerBench(rooms: string) {
  const script = path.join(ROOT, 'tools', 'bench', 'timer-bench.ts');
  const child = spawn(process.execPath, [script, '--rooms', rooms, '--replicas', '2'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: abort.signal,
  });
  let figures: Record<string, unknown> = {};
  const show = (line: string) => {
    if (line.startsWith('{"bench":"timer"')) figures = JSON.parse(line);
    if (line.trim()) log(dim(`  ${line}`));
  };
  forEachLine(child.stdout, show);
  forEachLine(child.stderr, show);
  await once(child, 'close');
  return figures;
}

/** The arena bench (tools/bench/arena-bench.ts) on its own stack, shown as it runs; its JSON line. */
async function runArenaBench() {
  const script = path.join(ROOT, 'tools', 'bench', 'arena-bench.ts');
  const args = ['--players', opts['arena-players'], '--minutes', opts['arena-minutes'], '--no-build'];
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: abort.signal,
  });
  let figures: Record<string, unknown> = {};
  const show = (line: string) => {
    if (line.startsWith('{"bench":"arena"')) figures = JSON.parse(line);
    if (line.trim()) log(dim(`  ${line}`));
  };
  forEachLine(child.stdout, show);
  forEachLine(child.stderr, show);
  await once(child, 'close');
  return figures;
}

/**
 * The floors against `basis`'s step: as many moves as it made, over as many games. The floor
 * (floor.ts) against the stack's NATS, with the CPU of NATS and this process; the old floor
 * (old-floor.ts) against its FerretDB, with the CPU of FerretDB and this process. Each is also
 * measured one move at a time (single). A floor whose server is unknown is left out (null).
 */
async function theFloors(basis: StepResult, stack: BenchedStack) {
  // The moves the step made, or (when it made none) the moves its games were meant to make.
  const floorMoves = basis.moves || Math.round((basis.games * DURATION_S * 1000) / THINK_MS);
  const singleMoves = Math.min(floorMoves, 2000);
  /** Runs `measure` with `server` (its pid) and this process sampled; the figures with CPU per move. */
  async function measured<T extends { moves: number }>(
    server: string,
    pid: ProcessSampler['pids'][string],
    measure: () => Promise<T>,
  ) {
    const sampler = new ProcessSampler({ [server]: pid, bench: process.pid });
    sampler.start();
    const figures = await measure();
    const usage = sampler.stop();
    const cpu = (usage.processes[server]?.cpuSeconds ?? 0) + (usage.processes.bench?.cpuSeconds ?? 0);
    return {
      ...figures,
      serverCpuPct: round(usage.processes[server]?.cpuPct),
      benchCpuPct: round(usage.processes.bench?.cpuPct),
      cpuMsPerMove: figures.moves ? round((1000 * cpu) / figures.moves, 2) : null,
    };
  }
  const line = (
    f: Awaited<ReturnType<typeof measureOldFloor>> & {
      serverCpuPct: unknown;
      benchCpuPct: unknown;
      cpuMsPerMove: number | null | undefined;
    },
    server: string,
  ) =>
    `  ${f.moves} moves in ${round(f.seconds, 1)} s = ${round(f.movesPerSec, 0)} moves/s with ${f.inFlight} in flight ` +
    `(per move p50 ${round(f.latency.p50, 1)} / p99 ${round(f.latency.p99, 1)} ms); ` +
    `CPU ${f.cpuMsPerMove} ms per move (${server} ${f.serverCpuPct} %, this process ${f.benchCpuPct} %)`;
  const singleLine = (f: Awaited<ReturnType<typeof measureOldFloor>>) =>
    `  one at a time: ${f.moves} moves = ${round(f.movesPerSec, 0)} moves/s, ` +
    `per move p50 ${round(f.latency.p50, 2)} / p99 ${round(f.latency.p99, 2)} ms`;

  let floor;
  const natsUrl = stack.natsUrl;
  if (natsUrl) {
    log(
      bold(
        `\n▸ The floor: ${floorMoves} moves over ${basis.games} games: validate, libs/game-rules, a guarded append, a push`,
      ),
    );
    // Unmeasured, so the engine, the schemas and the client are compiled and warm when measured.
    await measureFloor({ natsUrl, moves: WARM_MOVES, games: basis.games });
    const many = await measured('nats', stack.pids.nats, () =>
      measureFloor({ natsUrl, moves: floorMoves, games: basis.games }),
    );
    log(`${line(many, 'NATS')}; stream replicas ${many.replicas}`);
    const single = await measureFloor({ natsUrl, moves: singleMoves, games: basis.games, inFlight: 1 });
    log(singleLine(single));
    floor = { ...many, basisGames: basis.games, single };
  } else {
    log(yellow('\n▸ The floor: skipped (the NATS address is unknown: --nats-url)'));
  }

  let oldFloor;
  const mongoUrl = stack.mongoUrl;
  if (mongoUrl) {
    log(
      bold(
        `\n▸ The old floor: ${floorMoves} moves over ${basis.games} games through libs/game-rules, one FerretDB write each`,
      ),
    );
    await measureOldFloor({ mongoUrl, moves: WARM_MOVES, games: basis.games });
    const many = await measured('ferretdb', stack.pids.ferretdb, () =>
      measureOldFloor({ mongoUrl, moves: floorMoves, games: basis.games }),
    );
    log(line(many, 'FerretDB'));
    const single = await measureOldFloor({ mongoUrl, moves: singleMoves, games: basis.games, inFlight: 1 });
    log(singleLine(single));
    oldFloor = { ...many, basisGames: basis.games, single };
  } else {
    log(yellow('\n▸ The old floor: skipped (the FerretDB address is unknown: --mongo-url)'));
  }
  return { floor, oldFloor };
}

/**
 * The ladder on the peer (tools/bench/peer-colyseus): its server in a process of its own, each step
 * a new set of `games` games played by the peer's bots, measured as a stack step is. Stops at the
 * first step not held, as the stack's ladder does.
 */
async function runPeerLadder() {
  log(bold('\n▸ The peer: the same game on Colyseus (tools/bench/peer-colyseus, one process, in memory)'));
  peer = await startPeer({
    onLine: (line) => {
      if (/error|warn/i.test(line)) log(dim(`  [peer] ${line}`));
    },
  });
  const peerRecorder = new Recorder();
  const steps = [];
  try {
    for (const target of STEPS) {
      peerRecorder.resetErrors();
      log(bold(`\n▸ peer: ${target} games`) + dim(`  (load average ${loadAverage().join(' ')})`));
      const started = Date.now();
      peerFleet = new PeerFleet(peer.url.replace(/^http/, 'ws'), peerRecorder, {
        ...fleetOptions,
        chooseMove: (whosTurn, seat) => chooseMove(whosTurn, seat),
      } as ConstructorParameters<typeof PeerFleet>[2]);
      const failed = await peerFleet.add(target);
      log(
        dim(
          `  ${target - failed}/${target} games opened in ${((Date.now() - started) / 1000).toFixed(1)} s; warming up ${WARMUP_S} s`,
        ),
      );
      await wait(WARMUP_S);
      const sampler = new ProcessSampler({ peer: peer.pid, bench: process.pid });
      sampler.start();
      peerRecorder.open();
      const sampling = setInterval(() => sampler.sample(), 2000);
      log(dim(`  measuring ${DURATION_S} s ...`));
      await wait(DURATION_S);
      clearInterval(sampling);
      const window = peerRecorder.close();
      const usage = sampler.stop();
      await peerFleet.stop();
      await settle();
      const rtt = summarize(window.rtt);
      const server = usage.processes.peer;
      const errors = peerRecorder.errorCount;
      const step = {
        games: target,
        moves: window.moves,
        movesPerSec: round(window.moves / window.seconds, 1),
        gamesFinished: window.games,
        p50Ms: round(rtt.p50),
        p95Ms: round(rtt.p95),
        p99Ms: round(rtt.p99),
        maxMs: round(rtt.max),
        errors,
        errorKinds: Object.fromEntries(peerRecorder.errors),
        errorExamples: Object.fromEntries(peerRecorder.examples),
        machineBusyPct: round(usage.machineBusyPct),
        peerCpuPct: round(server?.cpuPct),
        peerPeakRssMb: round(server?.peakRssMb, 0),
        benchCpuPct: round(usage.processes.bench?.cpuPct),
        cpuPerMoveMs: window.moves ? round((1000 * (server?.cpuSeconds ?? 0)) / window.moves, 2) : null,
        held: errors === 0 && failed === 0 && rtt.count > 0 && (rtt.p99 ?? Infinity) <= MAX_P99,
      };
      steps.push(step);
      log(
        `  ${step.movesPerSec} moves/s (${step.moves} moves, ${step.gamesFinished} games finished); ` +
          `round trip p50 ${step.p50Ms} / p95 ${step.p95Ms} / p99 ${step.p99Ms} / max ${step.maxMs} ms`,
      );
      log(
        `  errors: ${errors}${errors ? ` ${JSON.stringify(step.errorKinds)}` : ''}; machine busy ${step.machineBusyPct} %; ` +
          `peer CPU ${step.cpuPerMoveMs} ms per move; peer ${step.peerCpuPct}% ${step.peerPeakRssMb} MB | bench ${step.benchCpuPct}%`,
      );
      for (const [kind, example] of Object.entries(step.errorExamples))
        log(dim(`    e.g. ${kind}: ${example}`));
      if (!step.held) {
        log(
          yellow(
            `  not held (${errors ? `${errors} errors` : `p99 ${step.p99Ms} ms > ${MAX_P99} ms`}): the peer's ladder stops here`,
          ),
        );
        break;
      }
    }
  } finally {
    await peerFleet?.stop().catch(() => undefined);
    await peer.stop();
    peer = undefined;
  }
  return steps;
}

/** Both ladders side by side, one row per number of games either climbed. */
function sideBySide(stack: StepResult[], peerSteps: Awaited<ReturnType<typeof runPeerLadder>>) {
  const games = [...new Set([...stack.map((r) => r.games), ...peerSteps.map((r) => r.games)])].sort(
    (a, b) => a - b,
  );
  const head = [
    'games',
    'stack moves/s',
    'stack p99 ms',
    'stack CPU ms/move',
    'stack held',
    'peer moves/s',
    'peer p99 ms',
    'peer CPU ms/move',
    'peer held',
  ];
  const rows = games.map((g) => {
    const a = stack.find((r) => r.games === g);
    const b = peerSteps.find((r) => r.games === g);
    return [
      g,
      ...(a ? [a.movesPerSec, a.p99Ms, a.stackCpuMsPerMove, a.held ? 'yes' : 'NO'] : ['-', '-', '-', '-']),
      ...(b ? [b.movesPerSec, b.p99Ms, b.cpuPerMoveMs, b.held ? 'yes' : 'NO'] : ['-', '-', '-', '-']),
    ];
  });
  return [head, head.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

// ------------------------------------------------------------------------------------------------
// Report

/** The ladder's table columns: title, and the step result's figure. */
const COLUMNS = Object.entries({
  games: 'games',
  'moves/s': 'movesPerSec',
  'p50 ms': 'p50Ms',
  'p95 ms': 'p95Ms',
  'p99 ms': 'p99Ms',
  'max ms': 'maxMs',
  errors: 'errors',
  'busy %': 'machineBusyPct',
} as const);

/** A markdown table of the steps, with a column for every process that any step measured. */
function ladderTable(results: StepResult[]) {
  const names = PROCESS_ORDER.filter((n) => results.some((r) => r.processes[n]));
  const head = [...COLUMNS.map(([title]) => title), ...names.map((n) => `${n} CPU % / MB`), 'held'];
  const rows = results.map((r) => [
    ...COLUMNS.map(([, key]) => r[key]),
    ...names.map((n) => (r.processes[n] ? `${r.processes[n].cpuPct} / ${r.processes[n].peakRssMb}` : '-')),
    r.held ? 'yes' : 'NO',
  ]);
  return [head, head.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

// ------------------------------------------------------------------------------------------------

const results: StepResult[] = [];
/** The step with the most games held (held: no errors, p99 within --max-p99). */
const bestHeld = () => results.findLast((r) => r.held);
let floors: Awaited<ReturnType<typeof theFloors>> | undefined;
let peerSteps: Awaited<ReturnType<typeof runPeerLadder>> = [];
let timer: Record<string, unknown> | undefined;
let arena: Record<string, unknown> | undefined;
let failure: unknown;
const started = Date.now();
mkdirSync(ARTIFACTS, { recursive: true });
const cpus = os.cpus();
const info = {
  cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
  cores: cpus.length,
  ramGiB: round(os.totalmem() / 2 ** 30, 1),
  node: process.version,
  os: `${os.type()} ${os.release()}`,
};
log(bold('Oasis 198 benchmark'));
log(`machine: ${info.cpu}, ${info.cores} cores, ${info.ramGiB} GiB RAM, Node ${info.node}, ${info.os}`);
log(
  `options: steps ${STEPS.join(', ')}; ${DURATION_S} s measured after ${WARMUP_S} s warm-up; think ${THINK_MS} ms ± ${Number(opts.jitter) * 100} %; ` +
    `turn ${opts.turn} s; moves over ${MOVES === 'socket' ? 'the room socket' : 'HTTP'}; held = 0 errors and p99 <= ${MAX_P99} ms; load average ${loadAverage().join(' ')}`,
);
try {
  let stack: BenchedStack;
  let url = GIVEN_URL;
  if (url && !(await answers(url))) throw new Error(`nothing answers GET ${url}/api/rooms/`);
  const local = `http://127.0.0.1:${gatewayPort()}`;
  if (!url && !opts.fresh && (await answers(local))) {
    url = local;
    log(yellow(`a stack answers at ${local}: benchmarking it (--fresh starts a throwaway one instead)`));
  }
  if (url) {
    stack = useRunningStack(url);
    log(dim(`stack: ${url}; processes found: ${Object.keys(stack.pids).join(', ') || 'none (not local)'}`));
  } else {
    stack = await startOwnStack();
    log(
      dim(
        `  ${stack.url} (logs: ${path.relative(ROOT, ARTIFACTS)}/stack.log; limits: ${Object.entries(
          SHARED_ADDRESS_LIMITS,
        )
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')})`,
      ),
    );
  }

  const client = new GatewayClient(stack.url, { maxSockets: 256 });
  loopDelay.enable();
  for (const target of STEPS) {
    const result = await runStep(target, stack, client);
    results.push(result);
    if (!result.held) {
      log(
        yellow(
          `  not held (${result.errors ? `${result.errors} errors` : `p99 ${result.p99Ms} ms > ${MAX_P99} ms`}): the ladder stops here`,
        ),
      );
      break;
    }
  }
  client.close();

  const basis = bestHeld() ?? results[0];
  if (!opts['no-floor'] && basis) {
    floors = await theFloors(basis, stack);
  } else if (!opts['no-floor']) {
    log(yellow('\n▸ The floors: skipped (no step measured)'));
  }

  if (own) {
    log(bold('\n▸ Stop the stack'));
    await cleanUp();
  }

  // After the stack: its idle processes would take their share of the peer's machine.
  if (opts.peer) peerSteps = await runPeerLadder();

  if (!opts['no-timer']) {
    log(
      bold(`\n▸ Timer lateness with ${opts['timer-rooms']} pending deadlines (tools/bench/timer-bench.ts)`),
    );
    timer = await runTimerBench(opts['timer-rooms']);
  }
  if (opts.arena) {
    log(bold(`\n▸ An arena of ${opts['arena-players']} bot players (tools/bench/arena-bench.ts)`));
    arena = await runArenaBench();
  }
} catch (error) {
  failure = error;
} finally {
  await cleanUp();
}

const best = bestHeld();
const { floor, oldFloor } = floors ?? {};
// The step the floors were measured against: the stack's CPU per move there (same run, same moves).
const floorBasis = results.find((r) => r.games === (floor ?? oldFloor)?.basisGames);
log(bold('\n▸ Ladder'));
log(
  dim(
    `  round trip = move sent (room socket or PATCH) -> the opponent's SSE stream receives that room version; CPU % of one core, MB = peak RSS`,
  ),
);
if (results.length) log(ladderTable(results));
const floorLine = (name: string, f: NonNullable<typeof floor> | NonNullable<typeof oldFloor>) =>
  `${name}: ${f.moves} moves over ${f.games} games in ${round(f.seconds, 1)} s = ${round(f.movesPerSec, 0)} moves/s, ` +
  `${f.cpuMsPerMove} ms CPU per move; one move at a time p50 ${round(f.single.latency.p50, 2)} ms / ` +
  `p99 ${round(f.single.latency.p99, 2)} ms`;
if (floor) {
  log(
    `\n${floorLine(`floor (one process: validate, libs/game-rules, guarded append R${floor.replicas}, push; same NATS)`, floor)}`,
  );
}
if (oldFloor)
  log(floorLine('old floor (one process: libs/game-rules + one guarded FerretDB write)', oldFloor));
if (floorBasis && (floor || oldFloor)) {
  log(
    `distributed path at ${floorBasis.games} games: ${floorBasis.movesPerSec} moves/s, ${floorBasis.stackCpuMsPerMove} ms CPU per move ` +
      `(all stack processes, background included), round trip p50 ${floorBasis.p50Ms} ms / p99 ${floorBasis.p99Ms} ms` +
      (floor?.cpuMsPerMove
        ? `; ${round((floorBasis.stackCpuMsPerMove ?? NaN) / floor.cpuMsPerMove, 2)} x the floor`
        : ''),
  );
}
if (opts.peer) {
  log(bold('\n▸ The stack and the peer (Colyseus), side by side'));
  log(dim('  peer CPU = its one process; stack CPU = every stack process; the bots are in neither'));
  log(sideBySide(results, peerSteps));
}
if (timer?.bench) {
  log(
    `timer (${timer.rooms} pending deadlines): fired ${timer.fired}/${timer.rooms}, duplicates ${timer.duplicates}, ` +
      `lateness p50 ${timer.p50Ms} ms / p95 ${timer.p95Ms} ms / p99 ${timer.p99Ms} ms / max ${timer.maxMs} ms`,
  );
}
log(dim(`took ${Math.round((Date.now() - started) / 1000)} s; load average now ${loadAverage().join(' ')}`));
writeFileSync(
  path.join(ARTIFACTS, 'results.json'),
  JSON.stringify({ machine: info, options: opts, results, floor, oldFloor, peer: peerSteps, timer }, null, 2),
);
if (failure) console.error(red(bold(`\n✗ benchmark failed: ${(failure as Error).message}`)));
// The peer's step with as many games as the stack's largest held, else the peer's largest held.
const peerCompared =
  peerSteps.find((r) => r.games === best?.games) ?? peerSteps.findLast((r) => r.held) ?? peerSteps[0];
const summary = {
  games: best?.games ?? 0,
  movesPerSec: best?.movesPerSec ?? 0,
  p50Ms: best?.p50Ms ?? null,
  p95Ms: best?.p95Ms ?? null,
  p99Ms: best?.p99Ms ?? null,
  errors: best ? best.errors : (results[0]?.errors ?? null),
  cpuPerMoveMs: floorBasis?.stackCpuMsPerMove ?? best?.stackCpuMsPerMove ?? null,
  floorCpuPerMoveMs: floor?.cpuMsPerMove ?? null,
  oldFloorCpuPerMoveMs: oldFloor?.cpuMsPerMove ?? null,
  peerGames: peerCompared?.games ?? null,
  peerMovesPerSec: peerCompared?.movesPerSec ?? null,
  peerP99Ms: peerCompared?.p99Ms ?? null,
  peerCpuPerMoveMs: peerCompared?.cpuPerMoveMs ?? null,
  peerErrors: peerCompared?.errors ?? null,
  timerLateP50Ms: timer?.p50Ms ?? null,
  timerLateP99Ms: timer?.p99Ms ?? null,
  arenaPairingP50Ms: arena?.arenaPairingP50Ms ?? null,
  arenaPairingP99Ms: arena?.arenaPairingP99Ms ?? null,
  arenaPlayers: arena?.arenaPlayers ?? null,
  arenaGames: arena?.arenaGames ?? null,
};
console.log(JSON.stringify(summary));
process.exit(failure || !best ? 1 : 0);
