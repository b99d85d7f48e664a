#!/usr/bin/env node
// The arena benchmark (`npm run bench -- --arena`, or node tools/bench/arena-bench.ts): an event-9
// arena of --players bot players for --minutes on a throwaway stack (free ports, throwaway data,
// the gateway's shared-address limits raised, the other events off, --replicas tournaments
// replicas). The bots register and join the arena before it starts, then each one does what a
// browser tab does: it holds the event's stream (GET .../events/event-9/stream?player=<id>), as
// the event page and the arena room's page do; a frame marked `mine` with a `roomId` takes it to
// that room, and each other `mine` frame (its own entry changed) and each opening refetch
// GET .../me, which may name a new room too; seated, it watches the room's stream and PATCHes a
// legal move a think time after its turn comes; the game over frees it, and the arena pairs it
// again without a new Join. Nothing is polled.
// Pairing latency, measured by the bot: from the moment it was free (the arena's start, or the
// game over its room stream brought) to its new room's first frame on the room's stream (the
// moment it was told of the room is printed too). The tournaments
// replicas' own histogram (oasis_arena_pairing_seconds: free -> room opened, per player) is
// printed beside it, as bucket bounds.
// The last line is one JSON object: arenaPairingP50Ms, arenaPairingP99Ms, arenaPlayers, arenaGames,
// arenaErrors, and the server's figures.
//
// Usage: node tools/bench/arena-bench.ts [options]
//   --players 500     bot players
//   --minutes 5       the arena's length
//   --think 1000      ms a bot thinks before a move (± 20 %), as the ladder's bots do; 300 is a
//                     harder arena, with about twice the games
//   --replicas 2      tournaments replicas (one holds the pairing lease)
//   --logs FILE       append the services' output to FILE (default: discarded)
//   --no-build        use what is built
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import { bucketBound, samples } from './lib/metrics.ts';
import { loadAverage, machineSummary, ProcessSampler } from './lib/procs.ts';
import { chooseMove } from './lib/rules.ts';
import { round, summarize } from './lib/stats.ts';
// The bench's own bot clients (as tools/scripts/bench.ts uses them).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { enlist, GatewayClient, type Player, type RoomView } from '../containers/src/players.ts';
import { contracts } from '../scripts/lib/libs.ts';
import { bold, dim, parseOptions, red } from '../scripts/lib/log.ts';
import { APPS, SHARED_ADDRESS_LIMITS, setupAndBuild, startStack, type Stack } from '../scripts/lib/stack.ts';
import { makeThrowawayDir } from '../scripts/lib/throwaway.ts';
import { freePort } from '../scripts/lib/net.ts';
import { rm } from 'node:fs/promises';
import { appendFileSync, readFileSync } from 'node:fs';

const source = readFileSync(new URL(import.meta.url), 'utf8');
const usage = source.slice(source.indexOf('\n') + 1, source.indexOf('\nimport ')).replace(/^\/\/ ?/gm, '');
const opts = parseOptions(usage, {
  players: { type: 'string', default: '500' },
  minutes: { type: 'string', default: '5' },
  think: { type: 'string', default: '1000' },
  replicas: { type: 'string', default: '2' },
  logs: { type: 'string' },
  'no-build': { type: 'boolean', default: false },
}).values;
const PLAYERS = Math.max(2, Number(opts.players));
const DURATION_MS = Math.round(Number(opts.minutes) * 60_000);
const THINK_MS = Number(opts.think);
const REPLICAS = Math.max(1, Number(opts.replicas));
const SERVER_METRIC = 'oasis_arena_pairing_seconds';
/** The server's histograms of the parts of a pairing: the rounds, each step of an opening, the scoring. */
const PARTS = [
  'oasis_arena_round_seconds',
  'oasis_arena_opening_seconds',
  'oasis_arena_scored_seconds',
  // Rooms' own part of an opening's `rooms` step.
  'oasis_rooms_arena_opening_seconds',
];
// The arena starts at the next multiple of EVERY_MS (epoch-aligned); the pause gives the bots time
// to register and join before it.
const PAUSE_MS = 30_000;
const EVERY_MS = DURATION_MS + PAUSE_MS;
const EVENT = '/api/tournaments/events/event-9';
/** The arena's first seconds, when everyone is paired at once and no game has ended yet. */
const START_WINDOW_MS = 8_000;

const errors = new Map<string, number>();
const error = (kind: string, detail: string) => {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
  if ((errors.get(kind) ?? 0) <= 3) console.error(red(`  ${kind}: ${detail.slice(0, 200)}`));
};
const latencies: number[] = [];
/** The same, apart: the first pairing of each bot (all free at the arena's start) and the ones after a game. */
const atStart: number[] = [];
const afterGames: number[] = [];
let games = 0;
/** Registrations tried again (a 503 while the stack warms up): not errors of the arena. */
let registerRetries = 0;
let moves = 0;

let stack: Stack | undefined;
let dir: string | undefined;
const abort = new AbortController();
async function cleanUp() {
  abort.abort();
  for (const b of bots) b.stop();
  await stack?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanUp().then(() => process.exit(130)));
}

type Me = { arena: { status: string; endsAt?: string } | null; joined: boolean; roomId: string | null };
type Stream = ReturnType<GatewayClient['stream']>;

/** Counts of what the bots asked and heard, for the cost of learning of a pairing. */
const traffic = { me: 0, notices: 0, seatFrames: 0, arenaStreams: 0, roomStreams: 0, notOpenYet: 0 };
/** Free -> told of the new room, by a frame or /me (its room may not be open yet). */
const named: number[] = [];
/** Told of the new room -> its first frame on the room's stream. */
const toFirstFrame: number[] = [];
/** Set at the arena's end: free bots stop watching; seated ones finish their game. */
let ending = false;
const bots: ArenaBot[] = [];

/**
 * One bot, as a browser tab is. It holds the event's stream throughout, as the event page does
 * while free and the arena room's page does while seated; a `mine` frame naming a room takes it
 * there, any other `mine` frame (and each opening) refetches /me, and a new room /me names takes it
 * there too. Seated, it watches the room's stream and moves a think time after its turn comes; the
 * game over (or the room's deletion) frees it.
 */
class ArenaBot {
  free = true;
  /** When it was free; null when it never saw its last game end (no latency to measure). */
  private freeAt: number | null;
  private lastRoom: string | null = null;
  private namedAt = 0;
  private fetching = false;
  private again = false;
  private arenaStream?: Stream;
  private roomStream?: Stream;
  private room?: RoomView;
  private version = -1;
  private plannedVersion = -1;
  private readonly get: <T>(p: string) => Promise<{ status: number; body: T }>;

  private readonly player: Player;
  private readonly arenaStart: number;

  constructor(player: Player, arenaStart: number) {
    this.player = player;
    this.arenaStart = arenaStart;
    this.freeAt = arenaStart;
    this.get = (p) => player.client.request('GET', p, { token: player.token });
  }

  start() {
    this.watchArena();
  }

  stop() {
    this.arenaStream?.close();
    this.roomStream?.close();
    this.arenaStream = this.roomStream = undefined;
  }

  /** The end: a free bot leaves the event page; a seated one leaves it once its game is over. */
  endArena() {
    ending = true;
    if (!this.free) return;
    this.arenaStream?.close();
    this.arenaStream = undefined;
  }

  private watchArena() {
    if (ending || abort.signal.aborted) return;
    traffic.arenaStreams++;
    const stream: Stream = this.player.client.stream(`${EVENT}/stream?player=${this.player.id}`, undefined, {
      onFrame: (_id, event, data) => {
        if (event !== contracts.ARENA_PUSH_EVENT) return;
        traffic.notices++;
        // The frame carries the standings; only a change of this player's own entry concerns it.
        const push = JSON.parse(data) as { event?: unknown; mine?: boolean; roomId?: string };
        if (push.mine && push.roomId) {
          traffic.seatFrames++;
          this.goTo(push.roomId);
        } else if (push.mine || !push.event) void this.refetch();
      },
      onEnd: (reason) => {
        if (this.arenaStream !== stream) return;
        this.arenaStream = undefined;
        error('arena stream drop', reason);
        setTimeout(() => this.watchArena(), 1000);
      },
    });
    this.arenaStream = stream;
    stream.opened.then(
      () => this.refetch(),
      () => undefined,
    );
  }

  /** The page's refetch of /me; notices that come while one is out fold into one more. */
  private async refetch(): Promise<void> {
    if (ending && this.free) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    // As the page's query does (retryTransient): a 5xx or no answer is tried twice more, 1 s then 2 s later.
    for (let attempt = 0; attempt < 3 && !(ending && this.free); attempt++) {
      if (attempt > 0) await sleep(1000 * 2 ** (attempt - 1));
      try {
        traffic.me++;
        const me = await this.get<Me>(`${EVENT}/me`);
        if (me.status !== 200) error(`me ${me.status}`, JSON.stringify(me.body));
        else if (me.body.roomId) this.goTo(me.body.roomId);
        if (me.status < 500) break;
      } catch (e) {
        error('me network', (e as Error).message);
      }
    }
    this.fetching = false;
    if (this.again) {
      this.again = false;
      await this.refetch();
    }
  }

  /** To a room it was told of, as the page navigates there: a new one only, and not after the end. */
  private goTo(roomId: string) {
    if (roomId === this.lastRoom || (ending && this.free)) return;
    // Told of a new game before its room's stream brought the last one's end.
    if (!this.free) {
      this.gameOver(this.room !== undefined);
      this.freeAt = null;
    }
    this.namedAt = Date.now();
    if (this.freeAt !== null) named.push(this.namedAt - Math.max(this.freeAt, this.arenaStart));
    this.free = false;
    this.lastRoom = roomId;
    this.room = undefined;
    this.version = this.plannedVersion = -1;
    this.watchRoom(roomId);
  }

  private watchRoom(roomId: string) {
    traffic.roomStreams++;
    const stream: Stream = this.player.client.stream(`/api/rooms/${roomId}/stream`, this.player.token, {
      onFrame: (id, event, data) => this.onRoomFrame(roomId, id, event, data),
      onEnd: (reason) => {
        if (this.roomStream !== stream || this.free) return;
        this.roomStream = undefined;
        if (/answered 404/.test(reason)) {
          // A room named before rooms has it (as a replica that missed the openings' notice may).
          if (!this.room && Date.now() - this.namedAt < 10_000) {
            traffic.notOpenYet++;
            setTimeout(() => this.lastRoom === roomId && !this.free && this.watchRoom(roomId), 100);
            return;
          }
          // A room gone before its stream opened is a game over this bot did not see.
          if (!this.room) error('room never opened', roomId);
          return this.gameOver(false);
        }
        error('room stream drop', reason);
        setTimeout(() => this.lastRoom === roomId && !this.free && this.watchRoom(roomId), 500);
      },
    });
    this.roomStream = stream;
  }

  private onRoomFrame(roomId: string, id: string | undefined, event: string, data: string) {
    if (this.free) return;
    if (event === 'room-deleted') return this.gameOver(false);
    if (event !== 'room' && event !== 'room-moves') return;
    const version = Number(id);
    if (version <= this.version) return;
    const pushed = JSON.parse(data) as RoomView;
    const room = event === 'room' ? pushed : this.room && contracts.withNewMoves(this.room, pushed as never);
    if (!room) {
      // Moves without the ones before them: the stream starts again with the whole room.
      this.roomStream?.close();
      this.roomStream = undefined;
      this.watchRoom(roomId);
      return;
    }
    // Seated: the player has its room on screen.
    if (!this.room) toFirstFrame.push(Date.now() - this.namedAt);
    if (!this.room && this.freeAt !== null) {
      const latency = Date.now() - Math.max(this.freeAt, this.arenaStart);
      latencies.push(latency);
      (this.freeAt <= this.arenaStart ? atStart : afterGames).push(latency);
    }
    this.room = room;
    this.version = version;
    const w = room.whosTurn;
    if (w.gameOver) return this.gameOver(true);
    const seat = room.players[0]?.id === this.player.id ? 'player1' : 'player2';
    if (!w.gameStarted || !w[seat].turn || this.plannedVersion === version) return;
    this.plannedVersion = version;
    setTimeout(() => void this.move(roomId, seat, version), THINK_MS * (0.8 + 0.4 * Math.random()));
  }

  private async move(roomId: string, seat: 'player1' | 'player2', version: number) {
    const w = this.room?.whosTurn;
    if (this.free || this.version !== version || !w) return;
    const answer = await this.player.client
      .request('PATCH', `/api/rooms/${roomId}/edit`, {
        token: this.player.token,
        body: { move: chooseMove(w as never, seat) },
      })
      .catch((e: Error) => ({ status: 0, body: e.message }));
    if (answer.status === 200) moves++;
    else if (answer.status !== 409) error(`move ${answer.status}`, JSON.stringify(answer.body));
  }

  /** Free again: each of a game's two players counts half of it. */
  private gameOver(seen: boolean) {
    if (this.free) return;
    if (seen || this.room) games += 0.5;
    this.free = true;
    this.freeAt = Date.now();
    this.roomStream?.close();
    this.roomStream = undefined;
    if (ending) this.endArena();
  }
}

/**
 * The server's own pairing histogram (oasis_arena_pairing_seconds), summed over the tournaments
 * replicas (only the lease holder pairs, but the lease may move): { count, sum, buckets le -> n,
 * byReplica }; p50/p99 as the upper bounds of their buckets.
 */
async function serverHistogram(s: Stack) {
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  const byReplica: Record<string, number> = {};
  const ticks: Record<string, number> = {};
  const rpcs: Record<string, number> = {};
  // Where an opening's time goes, and the rest of a freed player's wait: summed over the replicas.
  const parts = new Map<string, { count: number; sum: number; buckets: Map<number, number> }>();
  const openings: Record<string, number> = {};
  for (const app of s.apps.filter((a) => a.name === 'tournaments' || a.name === 'rooms')) {
    const text = await fetch(`http://127.0.0.1:${app.port}/metrics`, { signal: AbortSignal.timeout(5000) })
      .then((r) => r.text())
      .catch((e: Error) => (error('metrics scrape', `${app.port}: ${e.message}`), ''));
    for (const { name, labels, value } of samples(text)) {
      if (name === `${SERVER_METRIC}_bucket`) {
        const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
        buckets.set(le, (buckets.get(le) ?? 0) + value);
      } else if (name === `${SERVER_METRIC}_count`) {
        count += value;
        byReplica[app.port] = value;
      } else if (name === `${SERVER_METRIC}_sum`) sum += value;
      // The rounds each replica ran (ok: it held the lease) and its RPCs: why pairings stalled.
      else if (name === 'oasis_arena_ticks_total') ticks[`${app.port} ${labels.outcome}`] = value;
      else if (name === 'oasis_rpc_duration_seconds_count' && labels.subject?.startsWith('tournaments.'))
        rpcs[`${app.port} ${labels.subject} ${labels.outcome}`] = value;
      else if (name === 'oasis_rpc_expired_total' && labels.subject?.startsWith('tournaments.'))
        rpcs[`${app.port} ${labels.subject} expired`] = value;
      else if (name === 'oasis_arena_openings_total')
        openings[labels.outcome ?? ''] = (openings[labels.outcome ?? ''] ?? 0) + value;
      else if (PARTS.some((p) => name.startsWith(p))) {
        const family = PARTS.find((p) => name.startsWith(p)) ?? '';
        const key = `${family.replace(/^oasis_arena_|^oasis_|_seconds$/g, '')}${labels.step ? ` ${labels.step}` : ''}`;
        const part = parts.get(key) ?? { count: 0, sum: 0, buckets: new Map<number, number>() };
        parts.set(key, part);
        const suffix = name.slice(family.length);
        if (suffix === '_count') part.count += value;
        else if (suffix === '_sum') part.sum += value;
        else if (suffix === '_bucket') {
          const bound = labels.le === '+Inf' ? Infinity : Number(labels.le);
          part.buckets.set(bound, (part.buckets.get(bound) ?? 0) + value);
        }
      } else if (name === 'nodejs_eventloop_lag_max_seconds')
        rpcs[`${app.port} loop lag max ms`] = Math.round(value * 1000);
    }
  }
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const le = (q: number) => {
    if (!count) return null;
    const bound = bucketBound(buckets, count, q);
    // Beyond the last finite bucket: its bound, as a string ("> 10000").
    return bound === Infinity ? `> ${(bounds.at(-2) ?? 0) * 1000}` : bound * 1000;
  };
  const bound = (part: { count: number; buckets: Map<number, number> }, q: number) => {
    const b = bucketBound(part.buckets, part.count, q);
    return b === Infinity ? '> max' : `${b * 1000}`;
  };
  const steps = [...parts].map(
    ([key, part]) =>
      `${key} ${part.count} × mean ${round(part.count ? (1000 * part.sum) / part.count : null, 0)} ms` +
      ` (p50 ≤ ${bound(part, 0.5)}, p99 ≤ ${bound(part, 0.99)})`,
  );
  return {
    count,
    steps,
    openings,
    meanMs: count ? (1000 * sum) / count : null,
    p50LeMs: le(0.5),
    p99LeMs: le(0.99),
    buckets: Object.fromEntries(bounds.map((b) => [String(b), buckets.get(b)])),
    byReplica,
    ticks,
    rpcs,
  };
}

/** Where the figures come from: the commit and the machine. */
function provenance() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs', 'tools/bench'], {
      encoding: 'utf8',
    });
    if (dirty.trim()) commit += ' (with uncommitted changes)';
  } catch {
    // not a git checkout
  }
  return { commit, machine: machineSummary() };
}

/**
 * FerretDB's writes, one at a time through its launcher's lock (ADR 0023), by command and
 * collection: the ones that held the lock longest in all, and how long each waited for it.
 */
async function databaseWrites(top = 12): Promise<string[]> {
  type Row = { write: string; count: number; waitMs: number; holdMs: number; maxHoldMs: number };
  const rows = await fetch(`http://${process.env['FERRETDB_DEBUG_ADDR']}/debug/writes`)
    .then((r) => r.json() as Promise<Row[]>)
    .catch(() => null);
  if (!rows) return ['database writes: not available (FerretDB is not the launcher here)'];
  const all = rows.reduce((a, r) => ({ count: a.count + r.count, holdMs: a.holdMs + r.holdMs }), {
    count: 0,
    holdMs: 0,
  });
  const reads = await fetch(`http://${process.env['FERRETDB_DEBUG_ADDR']}/debug/reads`)
    .then((r) => r.json() as Promise<Row[]>)
    .catch(() => []);
  const readTotal = reads.reduce((a, r) => ({ count: a.count + r.count, holdMs: a.holdMs + r.holdMs }), {
    count: 0,
    holdMs: 0,
  });
  return [
    `database writes in the run (registrations included): ${all.count}, ` +
      `the lock held ${round(all.holdMs / 1000, 1)} s in all; by write, count × mean hold (max) and mean wait:`,
    ...rows
      .slice(0, top)
      .map(
        (r) =>
          `  ${r.write} ${r.count} × ${round(r.holdMs / r.count, 2)} ms (max ${round(r.maxHoldMs, 0)}), waited ${round(r.waitMs / r.count, 0)} ms`,
      ),
    `database reads and other commands: ${readTotal.count}, answered in ${round(readTotal.holdMs / 1000, 1)} s ` +
      'in all (they run side by side); by command, count × mean answer (max):',
    ...reads
      .slice(0, top)
      .map(
        (r) => `  ${r.write} ${r.count} × ${round(r.holdMs / r.count, 2)} ms (max ${round(r.maxHoldMs, 0)})`,
      ),
  ];
}

async function main() {
  await setupAndBuild([], { build: !opts['no-build'] });
  const dirs = await makeThrowawayDir('oasis-arena-bench-', 'arena-bench.ts');
  dir = dirs.dir;
  const { commit, machine } = provenance();
  // FerretDB's launcher serves its write-lock times there: which writes make the others wait.
  process.env['FERRETDB_DEBUG_ADDR'] ||= `127.0.0.1:${await freePort()}`;
  console.log(
    bold(
      `Arena bench: ${PLAYERS} players, an arena of ${DURATION_MS / 60_000} min, bots think ${THINK_MS} ms`,
    ),
  );
  console.log(dim(`  commit ${commit}; ${machine}; load average now ${loadAverage().join(' ')}`));
  stack = await startStack({
    portsMode: 'free',
    signal: abort.signal,
    runDir: dirs.runDir,
    dataDir: dirs.dataDir,
    apps: APPS.flatMap((a) => Array<string>(a.name === 'tournaments' ? REPLICAS : 1).fill(a.name)),
    extraEnv: {
      gateway: SHARED_ADDRESS_LIMITS,
      tournaments: {
        EVENT_2_EVERY_MS: '0',
        EVENT_6_EVERY_MS: '0',
        EVENT_9_EVERY_MS: String(EVERY_MS),
        EVENT_9_DURATION_MS: String(DURATION_MS),
        ARENA_SETTLE_MAX_MS: '30000',
      },
    },
    onExit: (app, how) => error('service exit', `${app} ${how}`),
    ...(opts.logs && {
      onLine: (app: string, line: string) => appendFileSync(opts.logs as string, `${app} ${line}\n`),
    }),
  });
  if (!stack.url || stack.skipped.length) throw new Error(`not started: ${stack.skipped.join(', ')}`);
  const client = new GatewayClient(stack.url, { maxSockets: 256 });
  const started = Date.now();
  // E-mail addresses hold 32 characters, 20 of them @bench.oasis198.test: names of 12 at most.
  const tag = Date.now().toString(36).slice(-5);
  const players = await enlist(
    client,
    Array.from({ length: PLAYERS }, (_, i) => `ar${tag}${i}`),
    { loginFirst: true, onError: () => registerRetries++ },
  );
  console.log(
    dim(`  ${players.length} players registered in ${((Date.now() - started) / 1000).toFixed(1)} s`),
  );
  // Join while no arena runs, so that everyone is there from its start.
  let arenaStart = Math.ceil(Date.now() / EVERY_MS) * EVERY_MS;
  if (arenaStart - Date.now() < 15_000) arenaStart += EVERY_MS;
  await sleep(Math.max(0, arenaStart - PAUSE_MS + 5_000 - Date.now()));
  console.log(dim(`  the arena starts at ${new Date(arenaStart).toISOString()}; joining`));
  for (let i = 0; i < players.length; i += 16) {
    await Promise.all(
      players.slice(i, i + 16).map(async (p) => {
        const answer = await p.client.request('POST', `${EVENT}/join`, { token: p.token });
        if (answer.status !== 200) error(`join ${answer.status}`, JSON.stringify(answer.body));
      }),
    );
  }
  // The bots open the event page before the start, as players waiting for it do.
  await sleep(Math.max(0, arenaStart - 20_000 - Date.now()));
  bots.push(...players.map((p) => new ArenaBot(p, arenaStart)));
  // Each at its own moment in the 20 s before the start: 500 tabs do not open in one millisecond.
  for (const b of bots)
    setTimeout(() => b.start(), Math.random() * Math.max(0, arenaStart - 2_000 - Date.now()));
  // The machine is shared: its load average (1 min) every 10 s of the arena says how shared.
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(loadAverage()[0] ?? NaN), 10_000);
  const arenaEnd = arenaStart + DURATION_MS;
  await sleep(Math.max(0, arenaStart - Date.now()));
  const sampler = new ProcessSampler(processesOf(stack));
  sampler.start();
  // No game ends in the arena's first seconds: the server's figures then are the start's alone.
  await sleep(START_WINDOW_MS);
  const start = await serverHistogram(stack);
  await sleep(Math.max(0, arenaEnd - Date.now()));
  const usage = sampler.stop();
  clearInterval(loadTimer);
  for (const b of bots) b.endArena();
  // Games begun before the end still count: their players finish them (a minute at most).
  const graceEnd = Date.now() + 60_000;
  while (bots.some((b) => !b.free) && Date.now() < graceEnd) await sleep(250);
  for (const b of bots) b.stop();
  const figures = summarize(latencies);
  const server = await serverHistogram(stack);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const seconds = DURATION_MS / 1000;
  const load = summarize(loads);
  console.log(bold('Arena pairing (player free → seated in an arena room), measured by the bots:'));
  console.log(
    `  pairings ${figures.count}  p50 ${figures.p50} ms  p95 ${figures.p95} ms  p99 ${figures.p99} ms  max ${figures.max} ms`,
  );
  for (const [what, part] of [
    ['at the start', atStart],
    ['after a game', afterGames],
  ] as const) {
    const f = summarize(part);
    console.log(
      `    ${what}: ${f.count}  p50 ${f.p50} ms  p95 ${f.p95} ms  p99 ${f.p99} ms  max ${f.max} ms`,
    );
  }
  for (const [what, part] of [
    ['free → told of the room (a frame or /me)', named],
    ["told → the room's first frame", toFirstFrame],
  ] as const) {
    const f = summarize(part);
    console.log(`  ${what}: p50 ${f.p50} ms  p95 ${f.p95} ms  p99 ${f.p99} ms  max ${f.max} ms`);
  }
  console.log(
    `  server ${SERVER_METRIC} (free → room opened, ${REPLICAS} replicas): ${server.count} observations` +
      `, mean ${round(server.meanMs, 0)} ms, p50 ≤ ${server.p50LeMs} ms, p99 ≤ ${server.p99LeMs} ms` +
      ` ${JSON.stringify(server.buckets)} by replica ${JSON.stringify(server.byReplica)}`,
  );
  console.log(
    `  the start, its first ${START_WINDOW_MS / 1000} s (server): ${start.count} pairings, mean ${round(start.meanMs, 0)} ms; ` +
      `openings ${JSON.stringify(start.openings)}; where the time went:`,
  );
  for (const line of start.steps) console.log(`    ${line}`);
  console.log(
    `  openings ${JSON.stringify(server.openings)}; where the time goes (server, the whole arena):`,
  );
  for (const line of server.steps) console.log(`    ${line}`);
  for (const line of await databaseWrites()) console.log(`    ${line}`);
  console.log(
    `  arena rounds by replica ${JSON.stringify(server.ticks)}; RPCs ${JSON.stringify(server.rpcs)}`,
  );
  console.log(
    `  games played ${games}, moves ${moves}, errors ${errorCount} ${JSON.stringify(Object.fromEntries(errors))}, registrations retried ${registerRetries}`,
  );
  console.log(
    `  learning of pairings: ${traffic.notices} arena notices heard (${traffic.seatFrames} naming a room), ` +
      `${traffic.me} GET /me (${round(traffic.me / seconds)}/s), ` +
      `${traffic.arenaStreams} arena and ${traffic.roomStreams} room streams opened (${traffic.notOpenYet} of them 404: named, not open yet)`,
  );
  console.log(
    `  CPU during the arena, % of one core: ${Object.entries(usage.processes)
      .map(([name, p]) => `${name} ${round(p.cpuPct ?? NaN, 1)}`)
      .join(', ')}; machine busy ${round(usage.machineBusyPct, 1)} %`,
  );
  console.log(
    `  commit ${commit}; ${machine}; load average (1 min) during the arena: mean ${round(
      loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length),
      2,
    )}, max ${load.max}`,
  );
  await cleanUp();
  console.log(
    JSON.stringify({
      bench: 'arena',
      arenaPairingP50Ms: round(figures.p50, 0),
      arenaPairingP99Ms: round(figures.p99, 0),
      arenaStartP99Ms: round(summarize(atStart).p99, 0),
      arenaAfterGameP50Ms: round(summarize(afterGames).p50, 0),
      arenaAfterGameP99Ms: round(summarize(afterGames).p99, 0),
      arenaPlayers: players.length,
      arenaGames: games,
      arenaMinutes: DURATION_MS / 60_000,
      arenaThinkMs: THINK_MS,
      arenaErrors: errorCount,
      arenaServerPairings: server.count,
      arenaServerP50LeMs: server.p50LeMs,
      arenaServerP99LeMs: server.p99LeMs,
      arenaMePerSecond: round(traffic.me / seconds),
      commit,
      loadAvgMax: load.max,
    }),
  );
  process.exit(errorCount === 0 && (figures.p99 ?? Infinity) < 1000 ? 0 : 1);
}

/** The stack's processes by name (a service's replicas together), NATS, FerretDB and the bots. */
function processesOf(running: Stack): ProcessSampler['pids'] {
  const pids: Record<string, number[]> = {};
  for (const app of running.apps) if (app.pid) (pids[app.name] ??= []).push(app.pid);
  return { ...pids, nats: running.infra.nats.pid, ferretdb: running.infra.mongo.pid, bots: process.pid };
}

main().catch(async (e: Error) => {
  console.error(red(`arena bench: ${e.stack}`));
  await cleanUp();
  process.exit(1);
});
