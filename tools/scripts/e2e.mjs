#!/usr/bin/env node
// `npm run e2e`: the browser end-to-end tests against the whole system, run as `npm start` runs it.
//   1. setup (packages, local servers, Debian's chromium) and build every project;
//   2. startStack() on free ports with throwaway run and data directories, so it never meets a
//      developer's running stack or data: NATS, FerretDB, the gateway serving the built web app,
//      auth, rewards, rooms and game-timer; the gateway's limits raised (every browser of the
//      scenarios comes from 127.0.0.1);
//   3. the scenarios of apps/e2e (Jest, one browser per file, one browser context per person);
//   4. stops everything again, also on failure, Ctrl-C or SIGTERM.
// Screenshots go to .artifacts/e2e/<scenario>/, the services' output to .artifacts/e2e/stack.log; a
// failing scenario leaves failure-<person>.png and failure-<person>.console.log beside them.
//
// Usage: node tools/scripts/e2e.mjs [--no-build] [--url <http://host:port>] [jest options...]
//   --no-build   use what is built
//   --url        run against a stack that is already running (nothing is built or started)
//   anything else goes to Jest, e.g. -t "account flows"
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { bold, dim, formatDuration, green, red, table, yellow } from './lib/log.mjs';
import { run } from './lib/proc.mjs';
import { SHARED_ADDRESS_LIMITS, startStack } from './lib/stack.mjs';
import { makeThrowawayDir } from './lib/throwaway.mjs';
import { ROOT } from './lib/workspace.mjs';

const USAGE = 'Usage: npm run e2e [-- --no-build] [-- --url <http://host:port>] [-- <jest options>]';
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, '.artifacts', 'e2e');
const TEMP_PREFIX = 'oasis-e2e-';
const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

// ------------------------------------------------------------------------------------------------
// Options: ours are consumed, the rest is Jest's.

const options = { build: true, url: undefined, jest: [] };
{
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--no-build') options.build = false;
    else if (arg === '--url') options.url = args[++i];
    else if (arg.startsWith('--url=')) options.url = arg.slice('--url='.length);
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg !== '--') options.jest.push(arg);
  }
  if (options.url !== undefined && !/^https?:\/\/[^/]+/.test(options.url ?? '')) {
    console.error(red(`--url needs an address like http://127.0.0.1:8080\n${USAGE}`));
    process.exit(1);
  }
}

// ------------------------------------------------------------------------------------------------
// Cleanup on every way out.

let stack; // the running stack, once started
let tempDir; // its run and data directories
let jest; // the running Jest child
let interrupted;
let serviceDied;
const abort = new AbortController(); // cancels a start in progress
const timings = [];

async function cleanUp() {
  if (jest && jest.exitCode === null) jest.kill('SIGTERM');
  if (stack) {
    const started = Date.now();
    const current = stack;
    stack = undefined;
    await current.stop().catch((error) => console.error(red(`stopping the stack: ${error.message}`)));
    timings.push(['Stop the stack', Date.now() - started]);
  }
  if (tempDir) {
    await rm(tempDir, { recursive: true, force: true });
    tempDir = undefined;
  }
}

function onSignal(signal) {
  if (interrupted) return;
  interrupted = signal;
  console.error(yellow(`\n${signal}: stopping the tests and the stack`));
  abort.abort();
  // Jest gets a terminal's Ctrl-C itself; other signals are only ours, so pass them on. The main
  // flow then fails its stage and stops what runs.
  if (jest && jest.exitCode === null && signal !== 'SIGINT') jest.kill(signal);
}
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
process.on('SIGHUP', () => onSignal('SIGHUP'));

async function stage(name, fn) {
  if (interrupted) throw new Error('interrupted');
  const started = Date.now();
  console.log(bold(`▸ ${name}`));
  try {
    const note = await fn();
    if (note) console.log(dim(`  ${note}`));
  } finally {
    timings.push([name, Date.now() - started]);
  }
}

/** The last lines each service wrote, to show when one of them dies. */
const recent = {};
function lastLines(app) {
  const lines = recent[app] ?? [];
  return `--- last lines of ${app} (all of them: ${path.relative(ROOT, ARTIFACTS)}/stack.log)\n${lines.join('\n')}`;
}

function fail(message, output) {
  const error = new Error(message);
  error.output = output;
  throw error;
}

// ------------------------------------------------------------------------------------------------
// Stages

async function setup() {
  const args = [path.join(ROOT, 'tools', 'scripts', 'setup.mjs'), '--quiet'];
  if (!existsSync(CHROMIUM)) args.push('--chromium');
  const result = await run(process.execPath, args);
  if (result.code !== 0) fail('setup failed (see above)');
  if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} is missing: node tools/scripts/setup.mjs --chromium`);
  return 'packages, local servers and chromium are in place';
}

async function build() {
  const result = await run(bin('nx'), ['run-many', '-t', 'build', '--outputStyle=static'], {
    env: NX_ENV,
    capture: true,
  });
  if (result.code !== 0) fail('the build failed', result.output);
  const cached = (result.output.match(/\[(local|remote) cache\]|existing outputs match the cache/g) ?? [])
    .length;
  return `every project is built${cached ? ` (${cached} from the cache)` : ''}`;
}

async function start() {
  const throwaway = await makeThrowawayDir(TEMP_PREFIX, 'e2e.mjs');
  tempDir = throwaway.dir;
  const log = createWriteStream(path.join(ARTIFACTS, 'stack.log'));
  const onLine = (app, line) => {
    log.write(`${app.padEnd(10)} | ${line}\n`);
    const tail = (recent[app] ??= []);
    tail.push(line);
    if (tail.length > 25) tail.shift();
  };
  try {
    stack = await startStack({
      portsMode: 'free',
      signal: abort.signal,
      runDir: throwaway.runDir,
      dataDir: throwaway.dataDir,
      extraEnv: { gateway: SHARED_ADDRESS_LIMITS },
      onLine,
      onExit: (app, code, signal) => {
        serviceDied = app;
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        console.error(red(bold(`\n!!! ${app} ${how} during the tests: stopping them !!!\n`)));
        if (jest && jest.exitCode === null) jest.kill('SIGTERM');
      },
    });
  } catch (error) {
    const dead = /^(\S+) exited/.exec(error.message)?.[1];
    fail(error.message, dead ? lastLines(dead) : undefined);
  }
  throwaway.recordStack(stack);
  const missing = ['gateway', 'auth', 'rewards', 'rooms', 'game-timer'].filter(
    (name) => !stack.apps.some((a) => a.name === name),
  );
  if (missing.length) fail(`not built, so not started: ${missing.join(', ')}`);
  return `${stack.url} (services: ${stack.apps.map((a) => a.name).join(', ')}; logs: ${path.relative(ROOT, ARTIFACTS)}/stack.log)`;
}

async function scenarios(baseUrl) {
  // Two files at a time: the scenarios mostly wait on real time (a 14 s turn, 2.4 s overlays), and
  // two browsers beside the stack keep a 2-core machine about a third busy. -i runs one at a time.
  const inBand = options.jest.some((arg) => arg === '-i' || arg === '--runInBand');
  const args = [
    '-c',
    path.join('apps', 'e2e', 'jest.config.cjs'),
    ...(inBand ? [] : ['--maxWorkers=2']),
    ...options.jest,
  ];
  const code = await new Promise((resolve, reject) => {
    jest = spawn(bin('jest'), args, {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, E2E_BASE_URL: baseUrl, E2E_ARTIFACTS_DIR: ARTIFACTS, FORCE_COLOR: '1' },
    });
    jest.on('error', reject);
    jest.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
  });
  if (serviceDied) fail(`${serviceDied} stopped during the tests`, lastLines(serviceDied));
  if (interrupted) fail('interrupted');
  if (code !== 0) fail(`some scenarios failed: see above and ${path.relative(ROOT, ARTIFACTS)}/`);
}

// ------------------------------------------------------------------------------------------------

const started = Date.now();
let failure;
try {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  if (options.url) {
    await stage('Setup', setup);
    await stage(`Scenarios against ${options.url}`, () => scenarios(options.url.replace(/\/+$/, '')));
  } else {
    await stage('Setup', setup);
    if (options.build) await stage('Build', build);
    else console.log(dim('▸ Build skipped (--no-build)'));
    await stage('Start the stack', start);
    await stage('Scenarios', () => scenarios(stack.url));
  }
} catch (error) {
  failure = error;
} finally {
  if (stack || tempDir) console.log(bold('▸ Stop the stack'));
  await cleanUp();
}

console.log(bold('\nEnd-to-end summary'));
console.log(table(timings.map(([name, ms]) => [` ${name}`, formatDuration(ms)])));
const total = formatDuration(Date.now() - started);
if (failure) {
  if (failure.output) console.error(failure.output);
  console.error(red(bold(`\n✗ end-to-end tests failed after ${total}: ${failure.message}`)));
  process.exit(interrupted ? 130 : 1);
}
console.log(green(bold(`\n✓ end-to-end tests passed in ${total}`)));
console.log(dim(`  screenshots: ${path.relative(ROOT, ARTIFACTS)}/`));
