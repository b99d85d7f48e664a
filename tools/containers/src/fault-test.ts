// The fault test: at least 20 concurrent games on the replicated container stack while, one at a
// time, a rooms, a game-timer, a rewards and a gateway replica, each of the three NATS nodes, the
// whole NATS cluster at once and the database crash (SIGKILL from the host to the container's
// main process, so the restart policy brings it back).
// Players of one game use different gateway replicas, so live push crosses replicas. Then it
// proves:
//   - every move that got a 2xx is stored in its game;
//   - every finished game is paid exactly once to each player;
//   - no 500 was ever answered (an outage answers 502, 503 or 504, or no answer at all);
//   (it prints how many requests one NATS node down refused against those in flight at the crash);
//   - a turn that timed out during an outage is applied once;
//   - a new game plays normally afterwards.
// It prints what was killed, how long each took to come back and what clients saw meanwhile, then
// one JSON line; the report is also written to .artifacts/fault/report.json.
//
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseOptions } from '../../scripts/lib/log.ts';
import { waitFor } from '../../scripts/lib/net.ts';
import { containerName, loadCompose } from './compose.ts';
import { bold, dim, formatDuration, green, podman, red, ROOT } from './exec.ts';
import {
  enlist,
  type FinishedGame,
  Fleet,
  type FleetOptions,
  type Game,
  GatewayClient,
  type MoveRecord,
  type Player,
  type Recorder,
  type RoomView,
} from './players.ts';
import {
  raiseAddressLimitsForTests,
  replicaReady,
  startContainerStack,
  stackUrls,
  stopContainerStack,
} from './stack.ts';

const USAGE = `Usage: node tools/containers/src/fault-test.ts [--games 20] [--kills rooms:1,nats-1:1] [--keep]
  --kills  the crashes (service:replica), in order; services joined by "+" crash together
  --keep   leave the stack up`;
const TURN_SECONDS = 60;
/** Sleeper games use the shortest turn, so their turn times out during an outage. */
const SLEEPER_TURN_SECONDS = 14;
/** deadline + 1 s after the last move: 14 + 4 + 1. */
const SLEEPER_TIMEOUT_AFTER_MS = (SLEEPER_TURN_SECONDS + 4 + 1) * 1000;
/** Sleeper k's turn runs out this long after crash k begins, while the crashed service is down. */
const SLEEPER_TIMEOUT_AFTER_CRASH_MS = 800;
/** After a killed service serves again, the load runs this long before the next crash. */
const SETTLE_MS = 15_000;
/** The first crash comes after the games have started; then one every KILL_INTERVAL_MS. */
const FIRST_KILL_MS = 45_000;
/** A slow restart (up to 15 s: the whole NATS cluster) plus SETTLE_MS still ends before the next crash. */
const KILL_INTERVAL_MS = 30_000;

type Kill = { service: string; replica: number };

/** The crashes, in order, as --kills takes them (service:replica, the replica 1 unless given). */
const DEFAULT_KILLS =
  'rooms:1,game-timer:1,rewards:1,gateway:2,nats-1:1,nats-2:1,nats-3:1,nats-1+nats-2+nats-3:1,mongo:1';
const parseKills = (kills: string): Kill[] =>
  kills.split(',').map((item) => {
    const [service = '', replica = '1'] = item.split(':');
    return { service, replica: Number(replica) };
  });
const isNats = (kill: Kill) => kill.service.startsWith('nats');
/** One NATS node of the cluster (not the whole cluster at once). */
const isOneNatsNode = (kill: Kill) => isNats(kill) && !kill.service.includes('+');

/**
 * What the players saw: every answer counted by HTTP status ('network' for none), the instants of
 * the failures among them, and every move answered 2xx and game finished, to check afterwards.
 */
export class Outcomes implements Recorder {
  readonly byStatus: Record<string, number> = {};
  readonly failures: Array<{ at: number; status: string; what: string }> = [];
  readonly accepted: MoveRecord[] = [];
  readonly finished = new Map<string, FinishedGame>();
  /** When each request started and ended, to count those in flight at a crash. */
  private readonly spans: Array<[number, number]> = [];

  count(status: number | 'network', what: string, startedAt = Date.now()): void {
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    this.spans.push([startedAt, Date.now()]);
    if (status === 'network' || status >= 500)
      this.failures.push({ at: Date.now(), status: String(status), what });
  }

  /** Requests sent before `at` and answered after it. */
  inFlightAt(at: number): number {
    return this.spans.filter(([from, to]) => from <= at && to >= at).length;
  }

  /** What the players complain of (cut streams, stalls) is no failure here. */
  error = () => undefined;

  move(move: MoveRecord): void {
    this.accepted.push(move);
  }

  gameFinished(game: FinishedGame): void {
    this.finished.set(game.gameId, game);
  }

  /** The first game finished in a room. */
  finishedIn(game: Game): FinishedGame | undefined {
    return [...this.finished.values()].find((g) => g.gameId.startsWith(`${game.roomId}:`));
  }

  /** Counts by status between two instants, from the recorded failures (2xx/4xx are not timed). */
  failuresBetween(from: number, to: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { at, status } of this.failures)
      if (at >= from && at <= to) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }
}

async function inspect(name: string): Promise<{ running: boolean; pid: number }> {
  const { stdout } = await podman(['inspect', '--format', '{{.State.Running}} {{.State.Pid}}', name]);
  const [running, pid] = stdout.trim().split(' ');
  return { running: running === 'true', pid: Number(pid) };
}

/** SIGKILL to the main process of each container at once; resolves when all run again. */
async function crashAll(names: string[]): Promise<number> {
  return Math.max(...(await Promise.all(names.map(crash))));
}

/** SIGKILL to the container's main process from the host; resolves when it runs again. */
async function crash(name: string): Promise<number> {
  const before = await inspect(name);
  if (!before.running || before.pid <= 0) throw new Error(`${name} is not running`);
  const at = Date.now();
  process.kill(before.pid, 'SIGKILL');
  await waitFor(
    async () => {
      const now = await inspect(name);
      return now.running && now.pid !== before.pid && now.pid > 0;
    },
    { timeoutMs: 120_000, what: `${name} to run again` },
  );
  return Date.now() - at;
}

/** Which container's readiness shows that a killed one serves again. */
function readinessProbeFor(project: string, kill: Kill): string {
  if (isNats(kill)) return containerName(project, 'gateway', 1);
  if (kill.service === 'mongo') return containerName(project, 'rooms', 1);
  return containerName(project, kill.service, kill.replica);
}

export function checkMoves(accepted: MoveRecord[], finalMoves: Map<string, FinishedGame['moves']>): string[] {
  const problems: string[] = [];
  for (const move of accepted) {
    const moves = finalMoves.get(move.gameId);
    const stored = moves?.[move.index];
    const { number, option } = move.stored ?? move;
    if (!moves) problems.push(`${move.gameId}: no final state to check move ${move.index} against`);
    else if (!stored || stored.number !== number || stored.option !== option) {
      problems.push(
        `${move.gameId}: move ${move.index} (${number} ${option}) answered 2xx but is not stored`,
      );
    }
  }
  return problems;
}

type Totals = { playedGames: number; points: number; coins: number };

/** What the rewards rules pay for the finished games seen (DECISIONS "Rewards"). */
export function expectedTotals(games: Iterable<FinishedGame>): Map<string, Totals> {
  const totals = new Map<string, Totals>();
  for (const { players, winner, endReason } of games) {
    for (const player of players) {
      const lostAt198 = winner !== null && player !== winner && endReason === 'reached198';
      const [points, coins] = player === winner ? [25, 10] : lostAt198 ? [5, 1] : [0, 0];
      const t = totals.get(player) ?? { playedGames: 0, points: 0, coins: 0 };
      totals.set(player, {
        playedGames: t.playedGames + 1,
        points: t.points + points,
        coins: t.coins + coins,
      });
    }
  }
  return totals;
}

export async function runFaultTest({
  games = 20,
  keep = false,
  kills: plan = DEFAULT_KILLS,
} = {}): Promise<void> {
  const planned = parseKills(plan);
  const started = Date.now();
  const outcomes = new Outcomes();
  const project = loadCompose().name;

  console.log(bold('▸ the container stack'));
  raiseAddressLimitsForTests();
  await startContainerStack();
  const { gateways } = await stackUrls();
  if (gateways.length < 2) throw new Error('the fault test needs two gateway replicas');

  console.log(bold(`▸ ${games} games and ${planned.length} sleeper games`));
  // Player 1 of each game plays through gateway 1, player 2 through gateway 2.
  const onAnswer = (status: number | 'network', what: string, startedAt: number) =>
    outcomes.count(status, what, startedAt);
  const [gw1, gw2] = gateways.map(
    (url) => new GatewayClient(url, { maxSockets: 64, timeoutMs: 15_000, onAnswer }),
  ) as [GatewayClient, GatewayClient];
  const run = Date.now().toString(36);
  const pairs = async (count: number, prefix: string): Promise<Array<[Player, Player]>> => {
    const names = Array.from({ length: count }, (_, i) => [`${prefix}${run}a${i}`, `${prefix}${run}b${i}`]);
    const players = await enlist(gw1, names.flat());
    return names.map((_, i) => [
      players[2 * i] as Player,
      { ...(players[2 * i + 1] as Player), client: gw2 },
    ]);
  };
  let playing = true;
  const firstKill = Date.now() + FIRST_KILL_MS;
  const killAt = (k: number) => firstKill + k * KILL_INTERVAL_MS;
  const fleet = (options: Omit<FleetOptions, 'jitter' | 'stallMs'>) =>
    // A read of the room after 3 s without a push: the fallback every browser has.
    new Fleet(outcomes, { jitter: 0.5, stallMs: 3000, ...options });
  const rooms = fleet({ duration: TURN_SECONDS, thinkMs: 700, keepPlaying: () => playing });
  // Sleeper k makes its last move 19 s (minus a little) before kill k: its opponent's turn times
  // out while the killed service is down or just restarting. Slow play keeps it below 198 till then.
  const sleepers = fleet({ duration: SLEEPER_TURN_SECONDS, thinkMs: 8000, keepPlaying: () => false });
  const roomPairs = await pairs(games, 'f');
  const sleeperPairs = await pairs(planned.length, 's');
  await Promise.all([
    ...roomPairs.map(([a, b]) => rooms.open(a, b)),
    ...sleeperPairs.map(([a, b], k) =>
      sleepers.open(a, b, killAt(k) + SLEEPER_TIMEOUT_AFTER_CRASH_MS - SLEEPER_TIMEOUT_AFTER_MS),
    ),
  ]);

  console.log(bold('▸ crashes, one at a time'));
  const kills = [];
  const problems: string[] = [];
  const lateCrashes: string[] = [];
  for (const [k, kill] of planned.entries()) {
    await sleep(Math.max(0, killAt(k) - Date.now()));
    const names = kill.service.split('+').map((service) => containerName(project, service, kill.replica));
    const name = names.join('+');
    const at = Date.now();
    // A crash that comes after sleeper k's turn has run out (the last recovery took longer than
    // KILL_INTERVAL_MS allows) leaves that timeout to a system with nothing down.
    if (at > killAt(k) + SLEEPER_TIMEOUT_AFTER_CRASH_MS) {
      lateCrashes.push(`${name} crashed ${at - killAt(k)} ms late, after sleeper ${k}'s turn ran out`);
    }
    const downMs = await crashAll(names);
    const probe = readinessProbeFor(project, kill);
    await waitFor(() => replicaReady(probe), {
      timeoutMs: Math.max(0, at + 120_000 - Date.now()),
      intervalMs: 200,
      what: `${probe} to be ready`,
    });
    const readyMs = Date.now() - at;
    await sleep(SETTLE_MS);
    const report = {
      target: name,
      killedAt: new Date(at).toISOString(),
      downMs,
      readyMs,
      inFlightAtKill: outcomes.inFlightAt(at),
      clientsSaw: outcomes.failuresBetween(at, Date.now()),
    };
    kills.push(report);
    // One NATS node down: its streams elect new leaders, and JetStream requests meanwhile answer 503
    // (never 500, checked below). How many exceed those in flight is a figure, not yet a bound
    // (docs/adr/0057): the services do not retry through a leader election.
    const failed = Object.values(report.clientsSaw).reduce((sum, n) => sum + n, 0);
    if (isOneNatsNode(kill) && failed > report.inFlightAtKill) {
      console.log(
        dim(`  ${name}: ${failed} requests refused, ${report.inFlightAtKill} in flight at the crash`),
      );
    }
    console.log(
      `  ${name.padEnd(24)} restarted in ${formatDuration(downMs)}, serving in ${formatDuration(readyMs)}; ` +
        `failures meanwhile ${JSON.stringify(report.clientsSaw)}`,
    );
  }

  console.log(bold('▸ a new game after the crashes'));
  playing = false;
  const afterwards = fleet({ duration: TURN_SECONDS, thinkMs: 100, keepPlaying: () => false });
  const [a, b] = (await pairs(1, 'n'))[0] as [Player, Player];
  const after = await afterwards.open(a, b);
  const deadline = Date.now() + 180_000;
  while (!outcomes.finishedIn(after) && Date.now() < deadline) await sleep(500);

  // Sleepers' timeouts and the last finished games reach rewards; then nothing moves any more.
  await sleep(10_000);
  for (const f of [rooms, sleepers, afterwards]) await f.stop();

  console.log(bold('▸ checks'));
  // Final moves of every game: finished ones as seen at game over, running ones as stored now.
  const finalMoves = new Map<string, FinishedGame['moves']>();
  for (const [id, game] of outcomes.finished) finalMoves.set(id, game.moves);
  for (const game of [...rooms.games, ...sleepers.games, after]) {
    if (!game.roomId) continue;
    const answer = await gw1.request<Pick<RoomView, 'whosTurn'>>('GET', `/api/rooms/${game.roomId}`);
    if (answer.status === 200)
      finalMoves.set(`${game.roomId}:${answer.body.whosTurn.gameNumber}`, answer.body.whosTurn.moves);
  }
  problems.push(...lateCrashes, ...checkMoves(outcomes.accepted, finalMoves));

  const sleeperResults = sleepers.games.map((game) => outcomes.finishedIn(game));
  sleeperResults.forEach((game, k) => {
    if (!game) problems.push(`sleeper ${k}: its game never ended`);
    else if (game.endReason !== 'timeout')
      problems.push(`sleeper ${k}: ended by ${game.endReason}, not by timeout`);
  });
  if (!outcomes.finishedIn(after)) problems.push('the game after the crashes did not finish');

  const expected = expectedTotals(outcomes.finished.values());
  for (const [playerId, want] of expected) {
    type Rewards = { playedGames: number; assets: { points: number; coins: number } };
    const answer = await gw1.request<Rewards>('GET', `/api/rewards/${playerId}`);
    const { playedGames, assets } = answer.body;
    if (answer.status !== 200) problems.push(`rewards of ${playerId}: ${answer.status}`);
    else if (JSON.stringify({ playedGames, ...assets }) !== JSON.stringify(want)) {
      problems.push(
        `rewards of ${playerId}: ${playedGames} games ${assets.points} points ${assets.coins} coins, ` +
          `expected ${want.playedGames}/${want.points}/${want.coins}`,
      );
    }
  }
  const checkedPlayers = expected.size;
  gw1.close();
  gw2.close();
  const statuses = Object.fromEntries(Object.entries(outcomes.byStatus).sort());
  for (const { at, what } of outcomes.failures.filter((f) => f.status === '500')) {
    problems.push(`a 500 at ${new Date(at).toISOString()}: ${what}`);
  }

  const report = {
    games: games + planned.length + 1,
    finishedGames: outcomes.finished.size,
    acceptedMoves: outcomes.accepted.length,
    sleeperTimeouts: sleeperResults.filter((g) => g?.endReason === 'timeout').length,
    playersCheckedForRewards: checkedPlayers,
    statuses,
    kills,
    problems,
    tookMs: Date.now() - started,
  };
  const dir = path.join(ROOT, '.artifacts', 'fault');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify(report, null, 2) + '\n');

  console.log(
    `  ${report.acceptedMoves} moves answered 2xx, ${report.finishedGames} games finished, ` +
      `${report.sleeperTimeouts}/${planned.length} timeouts during outages, rewards of ${checkedPlayers} players checked`,
  );
  console.log(`  answers by status: ${JSON.stringify(statuses)}`);
  for (const problem of problems.slice(0, 40)) console.log(red(`  ✗ ${problem}`));
  console.log(JSON.stringify(report));
  if (!keep) await stopContainerStack();
  else console.log(dim('  the stack stays up (--keep): npm run stack:containers -- down'));
  if (problems.length) throw new Error(`the fault test found ${problems.length} problems`);
  console.log(green(`✓ fault test passed in ${formatDuration(Date.now() - started)}`));
}

if (import.meta.main) {
  const { games, kills, keep } = parseOptions(USAGE, {
    games: { type: 'string', default: '20' },
    kills: { type: 'string', default: DEFAULT_KILLS },
    keep: { type: 'boolean', default: false },
  }).values;
  runFaultTest({ games: Number(games), keep, kills }).catch(async (error: unknown) => {
    console.error(red((error as Error).message));
    if (!keep) await stopContainerStack().catch(() => undefined);
    process.exit(1);
  });
}
