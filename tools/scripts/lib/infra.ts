// Local infrastructure: a NATS server with JetStream, FerretDB (MongoDB wire protocol, SQLite
// storage) and Mailpit (an SMTP server with a web inbox), run from the binaries setup.ts puts
// into .tools/bin.
//
// The servers are started detached, so they outlive the command that started them; their pids and
// ports are recorded in <runDir>/infra.json and their output goes to <runDir>/logs/*.log. A second
// start reuses servers that are still running and healthy.
//
// This is the only implementation of starting and stopping the local servers. `npm run infra`,
// `npm start` (via stack.ts) and the test library @oasis198/testing all use it; the test library
// runs tools/scripts/infra.ts as a child process with its own run and data directories, because
// Jest cannot load ES modules and these scripts must stay dependency-free.
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { GiveUp, HOST, choosePort, httpGet, mongoPing, natsHealthy, waitFor, type PortsMode } from './net.ts';
import { isRunning, stopProcess, withLock } from './proc.ts';
import { DATA_DIR, FERRETDB_BIN, MAILPIT_BIN, NATS_SERVER_BIN, RUN_DIR } from './workspace.ts';

export const SERVICES = ['nats', 'mongo', 'mail'] as const;
export type Service = (typeof SERVICES)[number];
export const isService = (name: string): name is Service => (SERVICES as readonly string[]).includes(name);
type Ports = Record<'nats' | 'natsMonitor' | 'mongo' | 'smtp' | 'inbox', number>;
type PortVar = [variable: string, fallback: number];

/**
 * A server as <runDir>/infra.json records it (monitorPort and monitorUrl: NATS's monitoring port;
 * for Mailpit, its web inbox and API).
 */
export interface ServerEntry {
  pid: number;
  port: number;
  url: string;
  monitorPort?: number;
  monitorUrl?: string;
  log: string;
  startedAt: string;
  reused?: boolean;
}
type State = Partial<Record<Service, ServerEntry>>;
/** What startInfra resolves: each server started or reused, and notes on ports it had to change. */
export type Infra = State & { notes: string[] };
type Dirs = { runDir: string; dataDir: string };
/** How long a server may take to answer once started, or a running one to answer when reused. */
const START_TIMEOUT_MS = 30_000;

interface Server {
  label: string;
  binary: string;
  ports: Partial<Record<keyof Ports, PortVar>>;
  args(options: { ports: Ports; dataDir: string }): string[];
  describe(ports: Ports): Pick<ServerEntry, 'port' | 'url' | 'monitorPort' | 'monitorUrl'>;
  healthy(entry: ServerEntry): Promise<boolean>;
}

/**
 * How each server is launched and probed; `ports` names its ports, each with the variable that
 * overrides its default.
 */
const SERVERS: Record<Service, Server> = {
  nats: {
    label: 'NATS',
    binary: NATS_SERVER_BIN,
    ports: { nats: ['NATS_PORT', 4222], natsMonitor: ['NATS_MONITOR_PORT', 8222] },
    args: ({ ports, dataDir }) => [
      ...['-a', HOST, '-p', String(ports.nats), '-m', String(ports.natsMonitor)],
      ...['-js', '-sd', path.join(dataDir, 'nats')],
    ],
    describe: (ports) => ({
      port: ports.nats,
      monitorPort: ports.natsMonitor,
      url: `nats://${HOST}:${ports.nats}`,
      monitorUrl: `http://${HOST}:${ports.natsMonitor}`,
    }),
    healthy: ({ monitorPort = 0 }) => natsHealthy({ monitorPort }),
  },
  mongo: {
    label: 'FerretDB',
    binary: FERRETDB_BIN,
    ports: { mongo: ['MONGO_PORT', 27017] },
    args: ({ ports, dataDir }) => [
      '-listen',
      `${HOST}:${ports.mongo}`,
      '-data',
      path.join(dataDir, 'ferretdb'),
    ],
    describe: (ports) => ({ port: ports.mongo, url: `mongodb://${HOST}:${ports.mongo}` }),
    healthy: (entry) => mongoPing(entry.port),
  },
  mail: {
    label: 'Mailpit',
    binary: MAILPIT_BIN,
    ports: { smtp: ['MAIL_SMTP_PORT', 1025], inbox: ['MAIL_INBOX_PORT', 8025] },
    args: ({ ports, dataDir }) => [
      ...['--smtp', `${HOST}:${ports.smtp}`, '--listen', `${HOST}:${ports.inbox}`],
      ...['--database', path.join(dataDir, 'mailpit.db')],
      // No calls out: a release check or a link check would wait on a network it may not reach.
      '--disable-version-check',
    ],
    describe: (ports) => ({
      port: ports.smtp,
      url: `smtp://${HOST}:${ports.smtp}`,
      monitorPort: ports.inbox,
      monitorUrl: `http://${HOST}:${ports.inbox}`,
    }),
    healthy: async ({ monitorPort = 0 }) => (await httpGet(monitorPort, '/livez'))?.status === 200,
  },
};

export const labelOf = (service: Service) => SERVERS[service].label;

const stateFile = (runDir: string) => path.join(runDir, 'infra.json');

function readState(runDir: string): State {
  try {
    return JSON.parse(readFileSync(stateFile(runDir), 'utf8'));
  } catch {
    return {};
  }
}

function writeState(runDir: string, state: State) {
  mkdirSync(runDir, { recursive: true });
  writeFileSync(stateFile(runDir), JSON.stringify(state, null, 2) + '\n');
}

/**
 * Starts (or reuses) the servers, on their usual ports (4222, 8222, 27017; NATS_PORT,
 * NATS_MONITOR_PORT and MONGO_PORT override them) as `portsMode` says: 'fixed' (fail when a port
 * is taken), 'free' (let the OS pick) or 'fixed-or-free' (the usual port when it is free, otherwise
 * one the OS picks, with a note saying so).
 * Resolves { nats?, mongo?, notes }, each server as { pid, url, port, ..., log, reused }.
 */
export async function startInfra({
  runDir = RUN_DIR,
  dataDir = DATA_DIR,
  services = SERVICES as readonly Service[],
  portsMode = 'fixed' as PortsMode,
} = {}): Promise<Infra> {
  return withLock(path.join(runDir, 'infra.lock'), async () => {
    const result: Infra = { notes: [] };
    const options = { runDir, dataDir, portsMode, notes: result.notes };
    try {
      for (const service of services) result[service] = await startOne(service, options);
    } catch (error) {
      // All or nothing: stop what this call started (servers it reused keep running).
      for (const service of services) {
        const entry = result[service];
        if (entry && !entry.reused) await stopRecorded(runDir, service);
      }
      throw error;
    }
    return result;
  });
}

async function startOne(
  service: Service,
  { portsMode, notes, ...dirs }: Dirs & { portsMode: PortsMode; notes: string[] },
): Promise<ServerEntry> {
  const server = SERVERS[service];
  const recorded = readState(dirs.runDir)[service];
  if (recorded && isRunning(recorded.pid, server.binary)) {
    await waitFor(() => server.healthy(recorded), {
      timeoutMs: START_TIMEOUT_MS,
      what: `${server.label} (pid ${recorded.pid}, already running) to answer; stop it with: npm run infra -- stop`,
    });
    return { ...recorded, reused: true };
  }
  if (!existsSync(server.binary)) {
    throw new Error(`${path.relative(process.cwd(), server.binary)} is missing: run npm run setup`);
  }

  // With OS-picked ports another process may grab one between our check and the server's bind;
  // such a start fails fast ("address already in use") and is retried with new ports.
  const attempts = portsMode === 'fixed' ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    const ports = await choosePorts(server, portsMode, notes);
    try {
      const entry = await launch(service, server, ports, dirs);
      return { ...entry, reused: false };
    } catch (error) {
      if (attempt >= attempts || !/address already in use/i.test((error as Error).message)) throw error;
    }
  }
}

/** The server's ports: each its variable's or its default, as choosePort takes it in `portsMode`. */
async function choosePorts(server: Server, portsMode: PortsMode, notes: string[]) {
  const chosen = {} as Ports;
  for (const [name, [variable, fallback]] of Object.entries(server.ports) as [keyof Ports, PortVar][]) {
    const wanted = Number(process.env[variable] || fallback);
    if (!Number.isInteger(wanted) || wanted < 1 || wanted > 65535)
      throw new Error(`${variable} must be a port number, got "${process.env[variable]}"`);
    const hint = `: stop it, set ${variable}, or use --free-ports`;
    chosen[name] = await choosePort(wanted, portsMode, { what: server.label, notes, hint });
  }
  return chosen;
}

async function launch(service: Service, server: Server, ports: Ports, { runDir, dataDir }: Dirs) {
  const logDir = path.join(runDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const log = path.join(logDir, `${service}.log`);
  const args = server.args({ ports, dataDir });
  const fd = openSync(log, 'a');
  const logStart = fstatSync(fd).size;
  writeSync(fd, `\n--- ${new Date().toISOString()} ${path.basename(server.binary)} ${args.join(' ')}\n`);
  const child = spawn(server.binary, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  await once(child, 'spawn').catch((error: Error) => {
    throw new Error(`cannot start ${server.binary}: ${error.message}`);
  });
  child.unref();

  const entry: ServerEntry = {
    pid: child.pid ?? 0,
    ...server.describe(ports),
    log,
    startedAt: new Date().toISOString(),
  };
  writeState(runDir, { ...readState(runDir), [service]: entry });

  try {
    await waitFor(
      async () => {
        if (exited) throw new GiveUp(`exited (${exited.signal ?? `code ${exited.code}`})`);
        return server.healthy(entry);
      },
      {
        timeoutMs: START_TIMEOUT_MS,
        intervalMs: 50,
        what: `${server.label} on port ${entry.port} to answer`,
      },
    );
  } catch (error) {
    await stopProcess(entry.pid, { timeoutMs: 2000 });
    forget(runDir, service);
    const tail = readFileSync(log, 'utf8').slice(logStart).trim().split('\n').slice(-15).join('\n');
    throw new Error(
      `${server.label} did not start: ${(error as Error).message}\n--- ${path.relative(process.cwd(), log)}:\n${tail}`,
    );
  }
  return entry;
}

/**
 * Stops the recorded servers (SIGTERM, then SIGKILL after 10 s) and forgets them.
 * Resolves [{ service, pid, outcome: 'stopped' | 'killed' | 'not running' }].
 */
export async function stopInfra({ runDir = RUN_DIR, services = SERVICES as readonly Service[] } = {}) {
  return withLock(path.join(runDir, 'infra.lock'), async () => {
    const recorded = readState(runDir);
    return Promise.all(
      services.filter((service) => recorded[service]).map((service) => stopRecorded(runDir, service)),
    );
  });
}

async function stopRecorded(runDir: string, service: Service) {
  const pid = readState(runDir)[service]?.pid ?? 0;
  let outcome = 'not running';
  if (isRunning(pid, SERVERS[service].binary)) outcome = (await stopProcess(pid)) ? 'killed' : 'stopped';
  forget(runDir, service);
  return { service, pid, outcome };
}

function forget(runDir: string, service: Service) {
  const state = readState(runDir);
  delete state[service];
  writeState(runDir, state);
}

/** What runs: [{ service, label, pid, running, healthy, url, ... }] for every recorded server. */
export async function infraStatus({ runDir = RUN_DIR } = {}) {
  const state = readState(runDir);
  const entries = SERVICES.flatMap((service) => (state[service] ? [{ service, entry: state[service] }] : []));
  return Promise.all(
    entries.map(async ({ service, entry }) => {
      const running = isRunning(entry.pid, SERVERS[service].binary);
      const healthy = running && (await SERVERS[service].healthy(entry));
      return { service, label: SERVERS[service].label, ...entry, running, healthy };
    }),
  );
}
