// CPU and memory of the stack's processes, from /proc (Linux): utime + stime of /proc/<pid>/stat
// over a window, VmRSS of /proc/<pid>/status sampled during it.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { CONTAINERS_CONF, ROOT } from '../../scripts/lib/workspace.ts';

/** Kernel clock ticks per second (USER_HZ); 100 on every mainstream Linux. */
const TICKS = 100;

export function cpuTicks(pid: number | undefined) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  } catch {
    return null;
  }
}

/** CPU milliseconds a process used since an earlier cpuTicks() reading. */
export const cpuMsSince = (pid: number | undefined, ticks: number) =>
  (((cpuTicks(pid) ?? ticks) - ticks) * 1000) / TICKS;

function rssBytes(pid: number | undefined) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
export function machineTicks() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? NaN) + (values[4] ?? 0);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

export const loadAverage = () => os.loadavg().map((n) => Math.round(n * 100) / 100);

/** Processes by name: a pid, or the pids of a service's replicas. */
type Pids = Record<string, number | number[] | undefined>;

/** CPU ticks or RSS of one process or the sum over several (the replicas of one service); null if any is gone. */
function over(pids: Pids[string], read: (pid: number | undefined) => number | null) {
  let total = 0;
  for (const pid of [pids].flat()) {
    const value = read(pid);
    if (value === null) return null;
    total += value;
  }
  return total;
}

/** The RSS of a process by name: `bench` is this process. */
const rssOf = (name: string, pids: Pids[string]) =>
  name === 'bench' ? process.memoryUsage.rss() : over(pids, rssBytes);

/**
 * Samples a set of processes ({ name: pid or [pids] }) over a window: start(), then sample() now and then
 * (for the peak RSS), then stop() -> { name: { cpuPct, rssMb, peakRssMb } } plus `machine` busy %.
 * cpuPct is of one core (200 % = both cores of this machine).
 */
export class ProcessSampler {
  pids: Pids;
  // What start() takes, declared here: the window's start, each process's CPU ticks and peak RSS
  // bytes, this process's CPU and the machine's ticks at the start.
  startedAt = 0n;
  ticks: Record<string, number | null> = {};
  peak: Record<string, number> = {};
  selfCpu: NodeJS.CpuUsage | undefined = undefined;
  machine: ReturnType<typeof machineTicks> = null;

  constructor(pids: Pids) {
    this.pids = pids;
  }

  start() {
    this.startedAt = process.hrtime.bigint();
    this.ticks = {};
    this.peak = {};
    for (const [name, pid] of Object.entries(this.pids)) this.ticks[name] = over(pid, cpuTicks);
    this.selfCpu = process.cpuUsage();
    this.machine = machineTicks();
    this.sample();
  }

  sample() {
    for (const [name, pid] of Object.entries(this.pids)) {
      const rss = rssOf(name, pid);
      if (rss !== null) this.peak[name] = Math.max(this.peak[name] ?? 0, rss);
    }
  }

  stop() {
    this.sample();
    const seconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    const out: Record<string, Record<'cpuSeconds' | 'cpuPct' | 'rssMb' | 'peakRssMb', number | null>> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      let cpuSeconds: number | null;
      if (name === 'bench') {
        const used = process.cpuUsage(this.selfCpu);
        cpuSeconds = (used.user + used.system) / 1e6;
      } else {
        const end = over(pid, cpuTicks);
        cpuSeconds =
          end === null || this.ticks[name] === null ? null : (end - (this.ticks[name] as number)) / TICKS;
      }
      const rss = rssOf(name, pid);
      out[name] = {
        cpuSeconds,
        cpuPct: cpuSeconds === null ? null : (100 * cpuSeconds) / seconds,
        rssMb: rss === null ? null : rss / 2 ** 20,
        peakRssMb: this.peak[name] === undefined ? null : this.peak[name] / 2 ** 20,
      };
    }
    const machine = machineTicks();
    const busyPct =
      machine && this.machine
        ? (100 * (machine.busy - this.machine.busy)) / Math.max(1, machine.total - this.machine.total)
        : null;
    return { seconds, processes: out, machineBusyPct: busyPct };
  }
}

// ---------------------------------------------------------------------------------------------
// Finding the processes of the container stack, which the bench did not start (--url)

/** Parent process id -> its children's ids, from one pass over /proc. */
function childrenByParent() {
  const children = new Map<number, number[]>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const parent = Number(/^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** compose.yaml's service names as the bench names its processes. */
const CONTAINER_PROCESS: Record<string, string> = { mongo: 'ferretdb' };

/**
 * The processes of the container stack (compose.yaml, `npm run stack:containers`) when it runs
 * here: every running container that compose project of this checkout started, by service, its
 * replicas together, each with its children (nginx's workers under its master).
 * Resolves { pids: { name: [pids] }, replicas: { name: n } }, empty when there is none.
 */
export function discoverContainers() {
  const found = { pids: {} as Record<string, number[]>, replicas: {} as Record<string, number> };
  let containers: { Pid: number; Labels?: Record<string, string> }[];
  try {
    const output = execFileSync(
      'podman',
      ['ps', '--format', 'json', '--filter', `label=com.docker.compose.project.working_dir=${ROOT}`],
      { encoding: 'utf8', env: { ...process.env, CONTAINERS_CONF }, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    containers = JSON.parse(output || '[]');
  } catch {
    return found;
  }
  const children = containers.length ? childrenByParent() : new Map();
  for (const container of containers) {
    const service = container.Labels?.['com.docker.compose.service'];
    if (!service || !(container.Pid > 0)) continue;
    const name = CONTAINER_PROCESS[service] ?? service;
    (found.pids[name] ??= []).push(container.Pid, ...(children.get(container.Pid) ?? []));
    found.replicas[name] = (found.replicas[name] ?? 0) + 1;
  }
  return found;
}
