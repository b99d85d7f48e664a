// The fuzzing stage of `npm test`: schemathesis (PyPI, pinned in tools/scripts/lib/workspace.mjs,
// installed by `setup.mjs --fuzz`) runs every one of its checks (`--checks all`) against the OpenAPI
// document the gateway publishes (/api/docs/openapi.json), on the whole system as `npm start` runs
// it, started on free ports with throwaway data by the same startStack() as the end-to-end tests.
//   tools/fuzz/schemathesis.toml   the run's settings (examples per operation, phases, reports)
//   tools/fuzz/hooks.py            the two rules of the document JSON Schema cannot state, and the
//                                  fuzzing player's account kept usable; no check is off
// Any failure fails the stage. The report (JUnit, and the requests that failed, replayable with
// `schemathesis replay`) goes to .artifacts/fuzz/, the services' output to .artifacts/fuzz/stack.log.
//
// Usage: node tools/fuzz/src/fuzz.ts [--no-build] [--url <http://host:port>] [schemathesis options...]
//   --no-build   use what is built
//   --url        fuzz a stack that is already running (nothing is built or started)
//   anything else goes to `schemathesis run`, e.g. --include-path-regex '^/api/rooms' -n 5
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { bold, dim, formatDuration, green, red, yellow } from '../../scripts/lib/log.mjs';
import { run as runCommand } from '../../scripts/lib/proc.mjs';
import { SHARED_ADDRESS_LIMITS, startStack as startStackUntyped } from '../../scripts/lib/stack.mjs';
import { makeThrowawayDir } from '../../scripts/lib/throwaway.mjs';
import { ROOT, SCHEMATHESIS_BIN, SCHEMATHESIS_VERSION } from '../../scripts/lib/workspace.mjs';

const USAGE =
  'Usage: node tools/fuzz/src/fuzz.ts [--no-build] [--url <http://host:port>] [schemathesis options]';
const ARTIFACTS = path.join(ROOT, '.artifacts', 'fuzz');
const CONFIG = path.join(ROOT, 'tools', 'fuzz', 'schemathesis.toml');
const DOCUMENT_PATH = '/api/docs/openapi.json';
/** The stage's time budget for the run itself: past it, the run is stopped and the stage fails. */
const RUN_BUDGET_MS = 8 * 60_000;
const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };

// The shared helpers are plain JavaScript; these are the parts of their signatures used here.
interface Stack {
  url: string;
  apps: { name: string }[];
  stop(): Promise<void>;
}
const startStack = startStackUntyped as unknown as (options: {
  portsMode: 'free';
  signal: AbortSignal;
  runDir: string;
  dataDir: string;
  extraEnv: Record<string, Record<string, string>>;
  onLine: (app: string, line: string) => void;
  onExit: (app: string, code: number | null, signal: string | null) => void;
}) => Promise<Stack>;
const run = runCommand as (
  command: string,
  args: string[],
  options?: { env?: Record<string, string>; capture?: boolean },
) => Promise<{ code: number; output: string }>;

const options = { build: true, url: undefined as string | undefined, schemathesis: [] as string[] };
{
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--no-build') options.build = false;
    else if (arg === '--url') options.url = args[++i];
    else if (arg.startsWith('--url=')) options.url = arg.slice('--url='.length);
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg !== '--') options.schemathesis.push(arg);
  }
  if (options.url !== undefined && !/^https?:\/\/[^/]+/.test(options.url)) {
    console.error(red(`--url needs an address like http://127.0.0.1:8080\n${USAGE}`));
    process.exit(1);
  }
}

let stack: Stack | undefined;
let tempDir: string | undefined;
let fuzzer: ReturnType<typeof spawn> | undefined;
let interrupted: string | undefined;
let serviceDied: string | undefined;
const abort = new AbortController();
/** The last lines each service wrote, shown when one dies. */
const recent: Record<string, string[]> = {};

function onSignal(signal: NodeJS.Signals): void {
  if (interrupted) return;
  interrupted = signal;
  console.error(yellow(`\n${signal}: stopping the fuzzer and the stack`));
  abort.abort();
  if (fuzzer && fuzzer.exitCode === null) fuzzer.kill('SIGTERM');
}
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
process.on('SIGHUP', () => onSignal('SIGHUP'));

class StageError extends Error {
  readonly output: string | undefined;
  constructor(message: string, output?: string) {
    super(message);
    this.output = output;
  }
}

async function stage(name: string, fn: () => Promise<string | undefined>): Promise<void> {
  if (interrupted) throw new StageError('interrupted');
  const started = Date.now();
  console.log(bold(`▸ ${name}`));
  const note = await fn();
  console.log(dim(`  ${note ? `${note} ` : ''}(${formatDuration(Date.now() - started)})`));
}

async function setup(): Promise<string> {
  const result = await run(process.execPath, [
    path.join(ROOT, 'tools', 'scripts', 'setup.mjs'),
    '--quiet',
    '--fuzz',
  ]);
  if (result.code !== 0) throw new StageError('setup failed (see above)');
  return `schemathesis ${SCHEMATHESIS_VERSION} is in place`;
}

async function build(): Promise<string> {
  const nx = path.join(ROOT, 'node_modules', '.bin', 'nx');
  const result = await run(nx, ['run-many', '-t', 'build', '--outputStyle=static'], {
    env: NX_ENV,
    capture: true,
  });
  if (result.code !== 0) throw new StageError('the build failed', result.output);
  return 'every project is built';
}

async function start(): Promise<string> {
  const throwaway = await makeThrowawayDir('oasis-fuzz-', 'fuzz.ts');
  tempDir = throwaway.dir;
  const log = createWriteStream(path.join(ARTIFACTS, 'stack.log'));
  try {
    stack = await startStack({
      portsMode: 'free',
      signal: abort.signal,
      runDir: throwaway.runDir,
      dataDir: throwaway.dataDir,
      // Every request of the run comes from 127.0.0.1, like the browsers of the end-to-end tests:
      // the per-address and per-user limits are raised as DECISIONS allows for test stacks.
      extraEnv: { gateway: SHARED_ADDRESS_LIMITS },
      onLine: (app: string, line: string) => {
        log.write(`${app.padEnd(10)} | ${line}\n`);
        const tail = (recent[app] ??= []);
        tail.push(line);
        if (tail.length > 25) tail.shift();
      },
      onExit: (app: string, code: number | null, signal: string | null) => {
        serviceDied = app;
        console.error(
          red(bold(`\n!!! ${app} ${signal ? `was killed by ${signal}` : `exited with code ${code}`} !!!\n`)),
        );
        if (fuzzer && fuzzer.exitCode === null) fuzzer.kill('SIGTERM');
      },
    });
  } catch (error) {
    throw new StageError((error as Error).message);
  }
  throwaway.recordStack(stack);
  return `${stack.url} (services: ${stack.apps.map((a) => a.name).join(', ')}; logs: .artifacts/fuzz/stack.log)`;
}

/**
 * The player the fuzzer acts as (schemathesis.toml logs in with these; hooks.py keeps the account
 * usable): a fresh one per run, valid by SPEC §5.
 */
async function registerPlayer(baseUrl: string): Promise<Record<string, string>> {
  const name = `fuzz${randomBytes(5).toString('hex')}`;
  const password = `Fz${randomBytes(6).toString('hex')}`;
  const email = `${name}@example.com`;
  const response = await fetch(`${baseUrl}/api/users/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password, confirmedPassword: password }),
  });
  if (response.status !== 201) {
    throw new StageError(`registering the fuzzing player answered ${response.status}`, await response.text());
  }
  return { FUZZ_NAME: name, FUZZ_EMAIL: email, FUZZ_PASSWORD: password };
}

/** Runs schemathesis with every check; resolves when it passed, throws with why when not. */
async function fuzz(baseUrl: string): Promise<undefined> {
  const player = await registerPlayer(baseUrl);
  const args = [
    '--config-file',
    CONFIG,
    'run',
    `${baseUrl}${DOCUMENT_PATH}`,
    '--checks',
    'all',
    '--report-dir',
    ARTIFACTS,
    ...options.schemathesis,
  ];
  console.log(
    dim(`  schemathesis ${args.map((a) => (a.startsWith(ROOT) ? path.relative(ROOT, a) : a)).join(' ')}`),
  );
  const timedOut = { value: false };
  const code = await new Promise<number>((resolve, reject) => {
    fuzzer = spawn(SCHEMATHESIS_BIN, args, {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        ...player,
        FUZZ_BASE_URL: baseUrl,
        // Hypothesis keeps its own files here, not in the checkout.
        HYPOTHESIS_STORAGE_DIRECTORY: path.join(ARTIFACTS, 'hypothesis'),
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    const timer = setTimeout(() => {
      timedOut.value = true;
      fuzzer?.kill('SIGTERM');
    }, RUN_BUDGET_MS);
    fuzzer.on('error', reject);
    fuzzer.on('exit', (exitCode, signal) => {
      clearTimeout(timer);
      resolve(exitCode ?? (signal ? 128 : 1));
    });
  });
  if (serviceDied) {
    throw new StageError(`${serviceDied} stopped during the run`, (recent[serviceDied] ?? []).join('\n'));
  }
  if (interrupted) throw new StageError('interrupted');
  if (timedOut.value)
    throw new StageError(`the run took longer than its budget of ${formatDuration(RUN_BUDGET_MS)}`);
  if (code !== 0)
    throw new StageError('the fuzzer found failures (above; requests in .artifacts/fuzz/)', serverErrors());
  return undefined;
}

/** The services' error lines, so a 500 comes with the error behind it. */
function serverErrors(): string | undefined {
  const lines = Object.entries(recent).flatMap(([app, tail]) =>
    tail
      .filter((line) => /"level":(50|60|"error"|"fatal")/.test(line))
      .map((line) => `${app}: ${line.slice(0, 800)}`),
  );
  return lines.length ? `--- the services' last error lines\n${lines.join('\n')}` : undefined;
}

const started = Date.now();
let failure: StageError | undefined;
try {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  await stage('Setup', setup);
  if (options.url) {
    const url = options.url.replace(/\/+$/, '');
    await stage(`Fuzz ${url}`, () => fuzz(url));
  } else {
    if (options.build) await stage('Build', build);
    else console.log(dim('▸ Build skipped (--no-build)'));
    await stage('Start the stack', start);
    await stage('Fuzz', () => fuzz((stack as Stack).url));
  }
} catch (error) {
  failure = error instanceof StageError ? error : new StageError((error as Error).message);
} finally {
  if (stack) {
    console.log(bold('▸ Stop the stack'));
    await stack.stop().catch((error: Error) => console.error(red(`stopping the stack: ${error.message}`)));
  }
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
}

const total = formatDuration(Date.now() - started);
if (failure) {
  if (failure.output) console.error(failure.output);
  console.error(red(bold(`\n✗ fuzzing failed after ${total}: ${failure.message}`)));
  process.exit(interrupted ? 130 : 1);
}
console.log(green(bold(`\n✓ fuzzing found nothing in ${total}`)));
