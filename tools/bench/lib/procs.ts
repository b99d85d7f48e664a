// CPU and memory of the stack's processes, from /proc (Linux): utime + stime of /proc/<pid>/stat
// over a window, VmRSS of /proc/<pid>/status sampled during it.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { CONTAINERS_CONF, ROOT, readIfExists } from '../../scripts/lib/workspace.ts';

/** Kernel clock ticks per second (USER_HZ); 100 on every mainstream Linux. */
const TICKS = 100;

export function cpuTicks(pid: number | undefined) {
  const stat = readIfExists(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields ? Number(fields[11]) + Number(fields[12]) : null; // utime, stime (fields 14 and 15)
}

/** CPU milliseconds a process used since an earlier cpuTicks() reading. */
export const cpuMsSince = (pid: number | undefined, ticks: number) =>
  (((cpuTicks(pid) ?? ticks) - ticks) * 1000) / TICKS;

function rssBytes(pid: number | undefined) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readIfExists(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) * 1024 : null;
}

/**
 * Busy and total jiffies of the whole machine (/proc/stat's first line): idle and iowait are idle;
 * softirq and steal, which os.cpus() leaves out, are busy.
 */
function machineTimes() {
  const [, ...fields] = readIfExists('/proc/stat')?.split('\n', 1)[0]?.trim().split(/\s+/) ?? [];
  const values = fields.map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
}

export const loadAverage = () => os.loadavg().map((n) => Math.round(n * 100) / 100);

/** The machine in one line, for a bench's figures: cores × CPU model, RAM and Node. */
export function machineSummary() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Processes by name: a pid, or the pids of a service's replicas. */
type Pids = Record<string, number | number[] | undefined>;

/** CPU ticks or RSS of one process or the sum over several (the replicas of one service); null if any is gone. */
function over(pids: Pids[string], read: (pid: number | undefined) => number | null) {
  const values = [pids].flat().map(read);
  return values.includes(null) ? null : (values as number[]).reduce((a, b) => a + b, 0);
}

/**
 * Samples a set of processes ({ name: pid or [pids] }) over a window: start(), then sample() now and then
 * (for the peak RSS), then stop() -> { name: { cpuSeconds, cpuPct, rssMb, peakRssMb } } plus the
 * machine's busy %. cpuPct is of one core (200 % = both cores of this machine).
 */
export class ProcessSampler {
  pids: Pids;
  // What start() takes: the window's start, each process's CPU ticks and peak RSS bytes, and the
  // machine's CPU times at the start.
  startedAt = 0;
  ticks: Record<string, number | null> = {};
  peak: Record<string, number> = {};
  machine = { busy: 0, total: 0 };

  constructor(pids: Pids) {
    this.pids = pids;
  }

  start() {
    this.startedAt = performance.now();
    this.peak = {};
    this.ticks = Object.fromEntries(
      Object.entries(this.pids).map(([name, pid]) => [name, over(pid, cpuTicks)]),
    );
    this.machine = machineTimes();
    this.sample();
  }

  /** Reads every process's RSS now, for the peaks; returns those readings (null: gone). */
  sample() {
    const rss: Record<string, number | null> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      const bytes = (rss[name] = over(pid, rssBytes));
      if (bytes !== null) this.peak[name] = Math.max(this.peak[name] ?? 0, bytes);
    }
    return rss;
  }

  stop() {
    const rss = this.sample();
    const seconds = (performance.now() - this.startedAt) / 1000;
    const mb = (bytes: number | null | undefined) => (typeof bytes === 'number' ? bytes / 2 ** 20 : null);
    const processes = Object.fromEntries(
      Object.entries(this.pids).map(([name, pid]) => {
        const [end, start] = [over(pid, cpuTicks), this.ticks[name]];
        const cpuSeconds = end !== null && typeof start === 'number' ? (end - start) / TICKS : null;
        const cpuPct = cpuSeconds === null ? null : (100 * cpuSeconds) / seconds;
        return [name, { cpuSeconds, cpuPct, rssMb: mb(rss[name]), peakRssMb: mb(this.peak[name]) }];
      }),
    );
    const machine = machineTimes();
    const machineBusyPct =
      (100 * (machine.busy - this.machine.busy)) / Math.max(1, machine.total - this.machine.total);
    return { seconds, processes, machineBusyPct };
  }
}

// ---------------------------------------------------------------------------------------------
// Finding the processes of the container stack, which the bench did not start (--url)

/** Parent process id -> its children's ids, from one pass over /proc. */
function childrenByParent() {
  const children = new Map<number, number[]>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const parent = /^PPid:\s*(\d+)$/m.exec(readIfExists(`/proc/${pid}/status`) ?? '')?.[1]; // gone meanwhile: none
    if (parent) children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(pid)]);
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
    // The NATS cluster's nodes (nats-1..3) count as one process group, as replicas do.
    const name = CONTAINER_PROCESS[service] ?? service.replace(/^nats-\d+$/, 'nats');
    (found.pids[name] ??= []).push(container.Pid, ...(children.get(container.Pid) ?? []));
    found.replicas[name] = (found.replicas[name] ?? 0) + 1;
  }
  return found;
}
