// The fault test: 20 concurrent games on the replicated container stack while, one at a time, a
// rooms, a game-timer, a rewards and a gateway replica, each of the three NATS nodes, the whole
// NATS cluster at once and the database crash (SIGKILL from the host to the container's main
// process, so the restart policy brings it back). Players of one game use different gateway
// replicas, so live push crosses replicas. The checks are those of disrupted-games.ts: nothing
// lost, no 500. It prints what was killed, how long each took to come back and what clients saw
// meanwhile, then one JSON line, also in .artifacts/fault/report.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseOptions } from '../../scripts/lib/log.ts';
import { waitFor } from '../../scripts/lib/net.ts';
import { containerName, loadCompose } from './compose.ts';
import { type Disruption, gamesDuring } from './disrupted-games.ts';
import { bold, dim, formatDuration, green, podman, red, ROOT } from './exec.ts';
import {
  raiseAddressLimitsForTests,
  replicaReady,
  startContainerStack,
  stackUrls,
  stopContainerStack,
} from './stack.ts';

const USAGE = `Usage: node tools/containers/src/fault-test.ts [--games 20] [--kills nats-1:1,rooms:1] [--keep]
  --kills  the crashes (service:replica), in order; services joined by "+" crash together
  --keep   leave the stack up`;
/** After a killed service serves again, the load runs this long before the next crash. */
const SETTLE_MS = 15_000;
/** The first crash comes after the games have started; then one every KILL_INTERVAL_MS. */
const FIRST_KILL_MS = 45_000;
/** A restart (up to 15 s) plus SETTLE_MS still ends before the next crash. */
const KILL_INTERVAL_MS = 30_000;
/** Several crashed at once (the whole NATS cluster) come back in 7-21 s, as its streams elect leaders. */
const JOINT_KILL_INTERVAL_MS = 45_000;

type Kill = { service: string; replica: number };

/** What only a single host crashes this way: each NATS node, the whole NATS cluster, the database. */
export const SINGLE_HOST_KILLS = 'nats-1:1,nats-2:1,nats-3:1,nats-1+nats-2+nats-3:1,mongo:1';
/** The crashes, in order, as --kills takes them (service:replica, the replica 1 unless given). */
const DEFAULT_KILLS = `rooms:1,game-timer:1,rewards:1,gateway:2,${SINGLE_HOST_KILLS}`;
const parseKills = (kills: string): Kill[] =>
  kills.split(',').map((item) => {
    const [service = '', replica = '1'] = item.split(':');
    return { service, replica: Number(replica) };
  });

async function inspect(name: string): Promise<{ running: boolean; pid: number }> {
  const { stdout } = await podman(['inspect', '--format', '{{.State.Running}} {{.State.Pid}}', name]);
  const [running, pid] = stdout.trim().split(' ');
  return { running: running === 'true', pid: Number(pid) };
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
  if (kill.service.startsWith('nats')) return containerName(project, 'gateway', 1);
  if (kill.service === 'mongo') return containerName(project, 'rooms', 1);
  return containerName(project, kill.service, kill.replica);
}

/** Crashes the containers of `kill` at once and waits until they serve again, then SETTLE_MS. */
function crashOf(project: string, kill: Kill): Disruption['run'] {
  return async () => {
    const at = Date.now();
    const names = kill.service.split('+').map((service) => containerName(project, service, kill.replica));
    const downMs = Math.max(...(await Promise.all(names.map(crash))));
    const probe = readinessProbeFor(project, kill);
    await waitFor(() => replicaReady(probe), {
      timeoutMs: Math.max(0, at + 120_000 - Date.now()),
      intervalMs: 200,
      what: `${probe} to be ready`,
    });
    const readyMs = Date.now() - at;
    await sleep(SETTLE_MS);
    return {
      note: `restarted in ${formatDuration(downMs)}, serving in ${formatDuration(readyMs)}`,
      downMs,
      readyMs,
    };
  };
}

export async function runFaultTest({
  games = 20,
  keep = false,
  kills: plan = DEFAULT_KILLS,
} = {}): Promise<void> {
  const planned = parseKills(plan);
  const started = Date.now();
  const project = loadCompose().name;

  console.log(bold('▸ the container stack'));
  raiseAddressLimitsForTests();
  await startContainerStack();
  const { gateways } = await stackUrls();
  if (gateways.length < 2) throw new Error('the fault test needs two gateway replicas');

  console.log(bold(`▸ ${games} games, ${planned.length} sleeper games, and crashes one at a time`));
  // Each crash starts once the slots of those before it have passed.
  let at = FIRST_KILL_MS;
  const disruptions = planned.map((kill): Disruption => {
    const disruption: Disruption = {
      name: kill.service
        .split('+')
        .map((service) => containerName(project, service, kill.replica))
        .join('+'),
      at,
      outage: true,
      run: crashOf(project, kill),
    };
    at += kill.service.includes('+') ? JOINT_KILL_INTERVAL_MS : KILL_INTERVAL_MS;
    return disruption;
  });
  const urls = gateways as [string, string];
  const report = await gamesDuring({ urls, games, disruptions, sleepers: true });

  const dir = path.join(ROOT, '.artifacts', 'fault');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify(report));
  if (!keep) await stopContainerStack();
  else console.log(dim('  the stack stays up (--keep): npm run stack:containers -- down'));
  if (report.problems.length) throw new Error(`the fault test found ${report.problems.length} problems`);
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
