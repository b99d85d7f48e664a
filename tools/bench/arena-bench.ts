#!/usr/bin/env node
// The arena benchmark (`npm run bench -- --arena`, or node tools/bench/arena-bench.ts): an event-9
// arena of --players bot players for --minutes on a throwaway stack (free ports, throwaway data,
// the gateway's shared-address limits raised, the other events off). The bots register, join the
// arena before it starts, and each one polls its arena room (GET .../events/event-9/me) while free,
// then plays the game (GET the room, PATCH a legal move a think time after its turn comes) and is
// free again when the game is over: the arena pairs it again without a new Join.
// Pairing latency is measured by the bot: from the moment it saw itself free (the arena's start,
// or its game over) to the moment it saw its new room; polling adds up to --poll ms to each figure.
// The server's own histogram (oasis_arena_pairing_seconds) is printed beside it.
// The last line is one JSON object: arenaPairingP50Ms, arenaPairingP99Ms, arenaPlayers, arenaGames,
// arenaErrors.
//
// Usage: node tools/bench/arena-bench.ts [options]
//   --players 500     bot players
//   --minutes 5       the arena's length
//   --think 300       ms a bot thinks before a move (± 20 %)
//   --poll 100        ms between a bot's polls
//   --no-build        use what is built
import { setTimeout as sleep } from 'node:timers/promises';
import { chooseMove } from './lib/rules.ts';
import { round, summarize } from './lib/stats.ts';
// The bench's own bot clients (as tools/scripts/bench.ts uses them).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { enlist, GatewayClient, type Player, type RoomView } from '../containers/src/players.ts';
import { bold, dim, parseOptions, red } from '../scripts/lib/log.ts';
import { SHARED_ADDRESS_LIMITS, setupAndBuild, startStack, type Stack } from '../scripts/lib/stack.ts';
import { makeThrowawayDir } from '../scripts/lib/throwaway.ts';
import { rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL(import.meta.url), 'utf8');
const usage = source.slice(source.indexOf('\n') + 1, source.indexOf('\nimport ')).replace(/^\/\/ ?/gm, '');
const opts = parseOptions(usage, {
  players: { type: 'string', default: '500' },
  minutes: { type: 'string', default: '5' },
  think: { type: 'string', default: '300' },
  poll: { type: 'string', default: '100' },
  'no-build': { type: 'boolean', default: false },
}).values;
const PLAYERS = Math.max(2, Number(opts.players));
const DURATION_MS = Math.round(Number(opts.minutes) * 60_000);
const THINK_MS = Number(opts.think);
const POLL_MS = Number(opts.poll);
// The arena starts at the next multiple of EVERY_MS (epoch-aligned); the pause gives the bots time
// to register and join before it.
const PAUSE_MS = 30_000;
const EVERY_MS = DURATION_MS + PAUSE_MS;
const EVENT = '/api/tournaments/events/event-9';

const errors = new Map<string, number>();
const error = (kind: string, detail: string) => {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
  if ((errors.get(kind) ?? 0) <= 3) console.error(red(`  ${kind}: ${detail.slice(0, 200)}`));
};
const latencies: number[] = [];
let games = 0;
/** Registrations tried again (a 503 while the stack warms up): not errors of the arena. */
let registerRetries = 0;
let moves = 0;

let stack: Stack | undefined;
let dir: string | undefined;
const abort = new AbortController();
async function cleanUp() {
  abort.abort();
  await stack?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanUp().then(() => process.exit(130)));
}

type Me = { arena: { status: string; endsAt?: string } | null; joined: boolean; roomId: string | null };

/** One bot: free → seated (measured) → plays → free, until the arena ends. */
async function bot(player: Player, arenaStart: number, arenaEnd: number) {
  const get = <T>(p: string) => player.client.request<T>('GET', p, { token: player.token });
  let freeAt = arenaStart;
  let lastRoom: string | null = null;
  while (Date.now() < arenaEnd && !abort.signal.aborted) {
    // Free: wait for the next room.
    let roomId: string | null = null;
    while (Date.now() < arenaEnd) {
      const me = await get<Me>(`${EVENT}/me`).catch((e: Error) => ({ status: 0, body: e.message }) as const);
      if (me.status !== 200) error(`me ${me.status}`, String(JSON.stringify(me.body)));
      else if (me.body.roomId && me.body.roomId !== lastRoom) {
        roomId = me.body.roomId;
        break;
      }
      await sleep(POLL_MS * (0.8 + 0.4 * Math.random()));
    }
    if (!roomId) return;
    const seatedAt = Date.now();
    if (freeAt >= arenaStart) latencies.push(seatedAt - Math.max(freeAt, arenaStart));
    lastRoom = roomId;
    // Seated: play until the game is over.
    for (;;) {
      const answer = await get<RoomView>(`/api/rooms/${roomId}`).catch(
        (e: Error) => ({ status: 0, body: e.message }) as const,
      );
      // rooms removes an arena room once its game is over: the player is free.
      if (answer.status === 404) {
        games += 0.5;
        freeAt = Date.now();
        break;
      }
      if (answer.status !== 200) {
        error(`room ${answer.status}`, String(JSON.stringify(answer.body)));
        await sleep(POLL_MS);
        continue;
      }
      const room = answer.body as RoomView;
      const w = room.whosTurn;
      if (w.gameOver) {
        games += 0.5; // each of its two players counts half of it
        freeAt = Date.now();
        break;
      }
      const seat = room.players[0]?.id === player.id ? 'player1' : 'player2';
      if (w.gameStarted && w[seat].turn) {
        await sleep(THINK_MS * (0.8 + 0.4 * Math.random()));
        const move = await player.client
          .request('PATCH', `/api/rooms/${roomId}/edit`, {
            token: player.token,
            body: { move: chooseMove(w as never, seat) },
          })
          .catch((e: Error) => ({ status: 0, body: e.message }));
        if (move.status === 200) moves++;
        else if (move.status !== 409) error(`move ${move.status}`, String(JSON.stringify(move.body)));
      } else await sleep(POLL_MS * (0.8 + 0.4 * Math.random()));
    }
  }
}

/** The server's pairing histogram (cumulative buckets) from the tournaments replicas' /metrics. */
async function serverHistogram(s: Stack) {
  const buckets = new Map<string, number>();
  for (const app of s.apps.filter((a) => a.name === 'tournaments')) {
    const text = await fetch(`http://127.0.0.1:${app.port}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    for (const m of text.matchAll(/^oasis_arena_pairing_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)) {
      buckets.set(m[1] as string, (buckets.get(m[1] as string) ?? 0) + Number(m[2]));
    }
  }
  return Object.fromEntries(buckets);
}

async function main() {
  await setupAndBuild([], { build: !opts['no-build'] });
  const dirs = await makeThrowawayDir('oasis-arena-bench-', 'arena-bench.ts');
  dir = dirs.dir;
  console.log(bold(`Arena bench: ${PLAYERS} players, an arena of ${DURATION_MS / 60_000} min`));
  stack = await startStack({
    portsMode: 'free',
    signal: abort.signal,
    runDir: dirs.runDir,
    dataDir: dirs.dataDir,
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
  });
  if (!stack.url || stack.skipped.length) throw new Error(`not started: ${stack.skipped.join(', ')}`);
  const client = new GatewayClient(stack.url, { maxSockets: 256 });
  const started = Date.now();
  const tag = Date.now().toString(36);
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
  await sleep(Math.max(0, arenaStart - Date.now()));
  const arenaEnd = arenaStart + DURATION_MS;
  await Promise.all(players.map((p) => bot(p, arenaStart, arenaEnd)));
  const figures = summarize(latencies);
  const server = await serverHistogram(stack);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  console.log(bold('Arena pairing (player free → seated in an arena room), measured by the bots:'));
  console.log(
    `  pairings ${figures.count}  p50 ${figures.p50} ms  p95 ${figures.p95} ms  p99 ${figures.p99} ms  max ${figures.max} ms`,
  );
  console.log(
    `  games played ${games}, moves ${moves}, errors ${errorCount} ${JSON.stringify(Object.fromEntries(errors))}, registrations retried ${registerRetries}`,
  );
  console.log(
    `  server histogram oasis_arena_pairing_seconds (cumulative, all replicas): ${JSON.stringify(server)}`,
  );
  await cleanUp();
  console.log(
    JSON.stringify({
      bench: 'arena',
      arenaPairingP50Ms: round(figures.p50, 0),
      arenaPairingP99Ms: round(figures.p99, 0),
      arenaPlayers: players.length,
      arenaGames: games,
      arenaMinutes: DURATION_MS / 60_000,
      arenaErrors: errorCount,
    }),
  );
  process.exit(errorCount === 0 && (figures.p99 ?? Infinity) < 1000 ? 0 : 1);
}

main().catch(async (e: Error) => {
  console.error(red(`arena bench: ${e.stack}`));
  await cleanUp();
  process.exit(1);
});
