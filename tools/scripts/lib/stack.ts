// The running system: local infrastructure plus the built services. `npm start` and the end-to-end
// and benchmark runners use startStack() and its stop(); the manifest below is plain data, so adding
// a service or a variable means editing APPS or SHARED_ENV only.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICES, startInfra, stopInfra, type Infra, type ServerEntry, type Service } from './infra.ts';
import { StepError, dim, step } from './log.ts';
import { GiveUp, HOST, choosePort, httpGet, waitFor, type PortsMode } from './net.ts';
import { forEachLine, isAlive, isRunning, run, stopProcess } from './proc.ts';
import { DATA_DIR, NX_ENV, ROOT, RUN_DIR, npmBin } from './workspace.ts';

// ----------------------------------------------------------------------------------------------
// Manifest
//   name      the Nx project (apps/<name>); its build output is dist/apps/<name>/main.js (`main`)
//   port      the default of its HTTP port (health and metrics; the gateway's public port), and
//   portEnv   the variable that sets it (default HTTP_PORT)
//   database  MongoDB database name (none: a service without one)
//   jwt       'private': it gets the local ES256 signing key as JWT_PRIVATE_KEY (auth); 'public': only
//             its public key as JWT_PUBLIC_KEY (the gateway). See localSigningKey below.
//   mail      it sends mail: SMTP_URL is Mailpit's, PUBLIC_WEB_URL the gateway's (reset links).
//   env       further fixed variables

const GATEWAY_DEFAULT_PORT = 8080;

interface App {
  name: string;
  main: string;
  port: number;
  portEnv: string;
  database?: string;
  jwt?: 'private' | 'public';
  mail?: boolean;
  env?: Record<string, string>;
}

const app = (name: string, port: number, more: Partial<App> = {}): App => ({
  name,
  main: `dist/apps/${name}/main.js`,
  port,
  portEnv: 'HTTP_PORT',
  ...more,
});

export const APPS: App[] = [
  // The gateway checks tokens itself with the public key of auth's signing key.
  app('gateway', GATEWAY_DEFAULT_PORT, {
    portEnv: 'PORT',
    jwt: 'public',
    env: { WEB_DIST_DIR: 'dist/apps/web' },
  }),
  app('auth', 3101, { database: 'oasis-auth', jwt: 'private', mail: true }),
  app('rewards', 3102, { database: 'oasis-rewards' }),
  app('rooms', 3103, { database: 'oasis-rooms' }),
  // Its deadlines are JetStream message schedules: NATS only.
  app('game-timer', 3104),
  // Event cup arenas: its own database; rooms opens the arena rooms it pairs.
  app('tournaments', 3105, { database: 'oasis-tournaments' }),
];

/** Variables every service gets (NATS_URL is added from the infrastructure). */
const SHARED_ENV = { LOG_LEVEL: 'info', NODE_ENV: 'production' };

/**
 * The gateway's limits for stacks whose clients all come from one address (end-to-end tests, the
 * benchmark's bots): out of reach, as DECISIONS allows. `npm start` keeps the defaults; a stack
 * started with extraEnv: { gateway: SHARED_ADDRESS_LIMITS } takes these.
 */
export const SHARED_ADDRESS_LIMITS = {
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
  REGISTER_MAX_PER_WINDOW: '1000000',
  ROOM_CREATES_PER_MINUTE: '1000000',
  ROOM_LEAVES_PER_MINUTE: '1000000',
  ROOM_EDITS_PER_SECOND: '1000000',
  REWARD_WRITES_PER_MINUTE: '1000000',
  LOGIN_SUCCESSES_PER_MINUTE: '1000000',
  LOGOUTS_PER_MINUTE: '1000000',
  ACCOUNT_EDITS_PER_HOUR: '1000000',
  PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: '1000000',
  PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: '1000000',
  FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: '1000000',
  PUSH_STREAMS_PER_ADDRESS: '1000000',
  // Not an address's limit but the replica's memory guard for a 384 MiB pod: the benchmark's
  // 2,000 games hold 4,000 streams on one gateway with no pod limit around it.
  PUSH_STREAMS_PER_REPLICA: '1000000',
};

/**
 * Arena schedules for end-to-end stacks: event-9 starts every 90 s and runs 45 s; the others are
 * off, so a scenario waits at most 90 s for an arena and meets no other. The 45 s pause keeps the
 * final standings on the event page while the last games end (their turns are 14 s) and settle.
 */
export const SHORT_ARENAS = {
  EVENT_2_EVERY_MS: '0',
  EVENT_6_EVERY_MS: '0',
  EVENT_9_EVERY_MS: '90000',
  EVENT_9_DURATION_MS: '45000',
  ARENA_SETTLE_MAX_MS: '20000',
};

/**
 * The browser scenarios that cross services and replicas (accounts, a whole game with a visitor,
 * the turn clock, Play now and the AI through the timer, the live leaderboard), by file name
 * (apps/e2e/src/<name>.e2e.ts). `npm test` runs them once, in its container stage, against the
 * replicated stack behind nginx; its end-to-end stage runs every other scenario (screens,
 * accessibility, the felt latency, My games, the phone layout, the arena, which needs SHORT_ARENAS)
 * against the stack as `npm start` runs it. `npm run e2e` alone runs them all.
 */
export const SYSTEM_SCENARIOS = ['account', 'quick-battle', 'timeout', 'play-now', 'leaderboard'];

/**
 * SYSTEM_SCENARIOS against a running stack's entry point, with their results under
 * .artifacts/e2e/<output>: two files at a time, as they mostly wait on turn clocks; then Play now
 * alone, since it seats a player in any open room (it can take none of the other scenarios' rooms,
 * nor they its), in a folder of its own (Playwright empties a run's folder when it starts).
 */
export async function runSystemScenarios(url: string, output: string): Promise<void> {
  const e2e = path.join(ROOT, 'tools', 'scripts', 'e2e.ts');
  // Playwright's file filters are regular expressions over the path: each names one file exactly.
  const files = (names: readonly string[]) => names.map((name) => `/${name}\\.e2e\\.ts$`);
  const playwright = async (folder: string, args: string[]) => {
    const out = `--output=${path.join(ROOT, '.artifacts', 'e2e', folder)}`;
    const result = await run(process.execPath, [e2e, '--url', url, out, ...args]);
    if (result.code !== 0) throw new StepError(`end-to-end scenarios against ${url} failed`);
  };
  await playwright(output, ['--workers=2', ...files(SYSTEM_SCENARIOS.filter((n) => n !== 'play-now'))]);
  await playwright(`${output}-play-now`, ['--workers=1', ...files(['play-now'])]);
}

/** Readiness: every service answers GET /health with 200 on its port. */
export const HEALTH_PATH = '/health';

/** The gateway's port: env PORT, else 8080. */
export function gatewayPort(env = process.env) {
  return env.PORT ? Number(env.PORT) : GATEWAY_DEFAULT_PORT;
}

/**
 * The local ES256 signing key pair, generated once and kept in <dataDir>/jwt-key.pem so that tokens
 * survive restarts; the public key is derived from it.
 */
function localSigningKey(dataDir: string) {
  const file = path.join(dataDir, 'jwt-key.pem');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  }
  const privateKey = readFileSync(file, 'utf8');
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { private: { JWT_PRIVATE_KEY: privateKey }, public: { JWT_PUBLIC_KEY: publicKey } };
}

// ----------------------------------------------------------------------------------------------
// Running it

interface StackOptions {
  portsMode?: PortsMode;
  apps?: string[];
  onLine?: (app: string, line: string) => void;
  onExit?: (app: string, how: string) => void;
  signal?: AbortSignal;
  runDir?: string;
  dataDir?: string;
  extraEnv?: Record<string, Record<string, string>>;
}

/** A service startStack() launched; `exited` says how it ended, once it has. */
export interface RunningApp {
  name: string;
  /** 0 when it could not be started. */
  pid: number;
  port: number;
  url: string;
  exited?: string;
}

export interface Stack {
  runDir: string;
  infra: Infra & Record<Service, ServerEntry>;
  apps: RunningApp[];
  skipped: string[];
  notes: string[];
  /** The gateway's URL (undefined without a gateway). */
  url: string | undefined;
  stopping: boolean;
  startedInfra: Service[];
  stop(): Promise<void>;
}

/** What stack.json records of a running stack (describeStack). */
export type StackRecord = ReturnType<typeof describeStack>;

/**
 * What comes before a start: setup (packages and tools, with `setupFlags`), then, with `build`, the
 * build of every project, its output shown as it comes with `stream`, else only if it fails.
 */
export async function setupAndBuild(setupFlags: string[], { build = true, stream = false } = {}) {
  await step('Setup', async () => {
    const setup = [path.join(ROOT, 'tools', 'scripts', 'setup.ts'), '--quiet', ...setupFlags];
    if ((await run(process.execPath, setup)).code !== 0) throw new StepError('setup failed (see above)');
    return 'tools and packages are in place';
  });
  if (!build) return console.log(dim('- Build skipped'));
  await step('Build', async () => {
    const args = ['run-many', '-t', 'build', '--outputStyle=static'];
    const result = await run(npmBin('nx'), args, { env: NX_ENV, capture: !stream });
    if (result.code !== 0) throw new StepError('the build failed', result.output);
    return 'every project is built';
  });
}

/**
 * Starts the infrastructure (reusing servers that already run) and every service whose build
 * output exists, then waits until each answers its health check.
 *
 * Options:
 *   portsMode     'fixed' | 'free' | 'fixed-or-free' for infrastructure and services alike
 *                 (default 'fixed-or-free': the usual ports, or free ones if taken, with a note);
 *   apps          names to start (default: all in APPS that are built); a name given n times
 *                 starts n replicas, each on a port of its own (with portsMode 'free');
 *   onLine(app, line)           receives the services' output (default: discarded);
 *   onExit(app, how)            called when a service exits while the stack is not stopping, with
 *                               how ("exited with code 1", "was killed by SIGKILL");
 *   signal        an AbortSignal that cancels the start (what was started is stopped again);
 *   runDir, dataDir             infrastructure state and data (default .run and .data; e.g. a
 *                               temporary directory for a throwaway stack);
 *   extraEnv      further variables per service, e.g. { gateway: SHARED_ADDRESS_LIMITS } (default none).
 *
 * Resolves a stack: { url, infra, apps: [{ name, pid, port, url }], skipped, notes, stop() }.
 * stop() stops the services, then the servers this call started.
 */
export async function startStack({
  portsMode = 'fixed-or-free',
  apps: only,
  onLine = () => undefined,
  onExit = () => undefined,
  signal,
  runDir = RUN_DIR,
  dataDir = DATA_DIR,
  extraEnv = {},
}: StackOptions = {}): Promise<Stack> {
  const infra = (await startInfra({ portsMode, runDir, dataDir })) as Stack['infra'];
  const stack: Stack = {
    runDir,
    infra,
    apps: [],
    skipped: [],
    notes: [...infra.notes],
    url: undefined,
    stopping: false,
    startedInfra: SERVICES.filter((s) => !infra[s].reused),
    stop: () => stopStack(stack),
  };
  try {
    const selected = only ? only.flatMap((name) => APPS.filter((app) => app.name === name)) : APPS;
    const built = selected.filter((app) => existsSync(path.resolve(ROOT, app.main)));
    stack.skipped = selected.filter((app) => !built.includes(app)).map((app) => app.name);
    const signingKey = localSigningKey(dataDir);
    for (const app of built) {
      // The gateway's port is the one to open: PORT sets it.
      const wanted = app.name === 'gateway' ? gatewayPort() : app.port;
      const port = await choosePort(wanted, portsMode, { what: app.name, notes: stack.notes });
      if (signal?.aborted) throw new Error('interrupted');
      const env = {
        ...SHARED_ENV,
        NATS_URL: infra.nats.url,
        ...app.env,
        ...extraEnv[app.name],
        [app.portEnv]: String(port),
        ...(app.database && { MONGO_URL: `${infra.mongo.url}/${app.database}` }),
        ...(app.jwt && signingKey[app.jwt]),
        ...(app.mail && {
          SMTP_URL: infra.mail.url,
          PUBLIC_WEB_URL:
            stack.apps.find((a) => a.name === 'gateway')?.url ?? `http://${HOST}:${gatewayPort()}`,
        }),
      };
      stack.apps.push(launchApp(app, stack, port, env, { onLine, onExit }));
    }
    stack.url = stack.apps.find((a) => a.name === 'gateway')?.url;
    // Recorded before they are ready: a runner killed while they start leaves them findable.
    writeFileSync(recordFile(runDir), JSON.stringify(describeStack(stack), null, 2) + '\n');

    await Promise.all(
      stack.apps.map((app) =>
        waitFor(
          async () => {
            if (app.exited) throw new GiveUp(`${app.name} ${app.exited}`);
            if (signal?.aborted) throw new GiveUp('interrupted');
            return (await httpGet(app.port, HEALTH_PATH))?.status === 200;
          },
          { timeoutMs: 60_000, intervalMs: 250, what: `${app.name} to answer ${app.url}${HEALTH_PATH}` },
        ),
      ),
    );
    return stack;
  } catch (error) {
    await stopStack(stack);
    throw error;
  }
}

function launchApp(
  app: App,
  stack: Stack,
  port: number,
  env: Record<string, string>,
  { onLine, onExit }: Required<Pick<StackOptions, 'onLine' | 'onExit'>>,
) {
  // Detached: a Ctrl-C in the terminal reaches only the parent, which stops the services itself,
  // in order. The whole process group is signalled when stopping.
  const child = spawn(process.execPath, ['--enable-source-maps', app.main], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const running: RunningApp = { name: app.name, pid: child.pid ?? 0, port, url: `http://${HOST}:${port}` };
  for (const stream of [child.stdout, child.stderr]) forEachLine(stream, (line) => onLine(app.name, line));
  child.on('error', (error) => onLine(app.name, `cannot start: ${error.message}`));
  child.on('exit', (code, signal) => {
    running.exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (!stack.stopping) onExit(app.name, running.exited);
  });
  return running;
}

const recordFile = (runDir: string) => path.join(runDir, 'stack.json');

/** What a running stack is, for tools that find it later (runningStack): its processes and URLs. */
export const describeStack = ({ url, apps, infra }: Stack) => ({
  url,
  apps: apps.map(({ name, pid, port }) => ({ name, pid, port })),
  nats: { pid: infra.nats.pid, url: infra.nats.url, monitorUrl: infra.nats.monitorUrl },
  mongo: { pid: infra.mongo.pid, url: infra.mongo.url },
  mail: { pid: infra.mail.pid, url: infra.mail.url, inboxUrl: infra.mail.monitorUrl },
});

/**
 * The stack startStack() started with this run directory (`npm start`'s by default), with those of
 * its services that still run; undefined when there is none.
 */
export function runningStack(runDir = RUN_DIR): StackRecord | undefined {
  let record: StackRecord;
  try {
    record = JSON.parse(readFileSync(recordFile(runDir), 'utf8'));
  } catch {
    return undefined;
  }
  const main = (name: string) => APPS.find((app) => app.name === name)?.main ?? name;
  return { ...record, apps: record.apps.filter((app) => isRunning(app.pid, main(app.name))) };
}

/** Stops the services (SIGTERM, SIGKILL after 10 s), then the infrastructure the stack started. */
async function stopStack(stack: Stack) {
  stack.stopping = true;
  await Promise.all(
    stack.apps
      .filter((app) => !app.exited && isAlive(app.pid))
      .map((app) => stopProcess(app.pid, { group: true })),
  );
  rmSync(recordFile(stack.runDir), { force: true });
  if (stack.startedInfra.length) await stopInfra({ runDir: stack.runDir, services: stack.startedInfra });
}
