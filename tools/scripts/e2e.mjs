#!/usr/bin/env node
// `npm run e2e`: the browser end-to-end tests against the whole system, run as `npm start` runs it.
//   1. setup (packages, local servers, Debian's chromium) and build every project;
//   2. `playwright test` with apps/e2e/playwright.config.ts: its webServer starts a throwaway stack
//      (tools/scripts/e2e-stack.mjs) before the scenarios and stops it after them.
// With --url nothing is built or started: the scenarios run against that stack (E2E_BASE_URL).
// Screenshots go to .artifacts/e2e/<number>-<file>/, the services' output to .artifacts/e2e/stack.log; a
// failing scenario leaves Playwright's trace and a screenshot of every open page in .artifacts/e2e/.
//
// Usage: node tools/scripts/e2e.mjs [--no-build] [--url <http://host:port>] [playwright test options...]
//   --no-build   use what is built
//   --url        run against a stack that is already running
//   anything else goes to `playwright test`, e.g. -g "Account flows" or a file name such as latency
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { bold, dim, red } from './lib/log.mjs';
import { run } from './lib/proc.mjs';
import { ROOT } from './lib/workspace.mjs';

const USAGE =
  'Usage: npm run e2e [-- --no-build] [-- --url <http://host:port>] [-- <playwright test options>]';
const CHROMIUM = '/usr/bin/chromium';
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

const options = { build: true, url: undefined, playwright: [] };
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
    } else if (arg !== '--') options.playwright.push(arg);
  }
  if (options.url !== undefined && !/^https?:\/\/[^/]+/.test(options.url ?? '')) {
    console.error(red(`--url needs an address like http://127.0.0.1:8080\n${USAGE}`));
    process.exit(1);
  }
}

/** Runs a step's command (its output shown only if it fails, with `capture`); exits if it fails. */
async function step(name, command, args, { env, capture = false } = {}) {
  console.log(bold(`▸ ${name}`));
  const result = await run(command, args, { env, capture });
  if (result.code !== 0) {
    if (result.output) console.error(result.output);
    console.error(red(bold(`\n✗ end-to-end tests: ${name} failed`)));
    process.exit(1);
  }
}

// Playwright stops gracefully (its webServer's stack included) on SIGINT only: other signals are
// passed on as SIGINT; a terminal's Ctrl-C reaches it directly (it ignores the repeat).
let playwright;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => (playwright ? playwright.kill('SIGINT') : process.exit(130)));
}

const setupArgs = [path.join(ROOT, 'tools', 'scripts', 'setup.mjs'), '--quiet'];
if (!existsSync(CHROMIUM)) setupArgs.push('--chromium');
await step('Setup', process.execPath, setupArgs);
if (!existsSync(CHROMIUM)) {
  console.error(red(`${CHROMIUM} is missing: node tools/scripts/setup.mjs --chromium`));
  process.exit(1);
}
if (options.url) console.log(dim(`▸ Build skipped: the scenarios run against ${options.url}`));
else if (!options.build) console.log(dim('▸ Build skipped (--no-build)'));
else {
  const nxEnv = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
  await step('Build', bin('nx'), ['run-many', '-t', 'build', '--outputStyle=static'], {
    env: nxEnv,
    capture: true,
  });
}

console.log(bold('▸ Scenarios'));
const code = await new Promise((resolve, reject) => {
  const config = path.join('apps', 'e2e', 'playwright.config.ts');
  playwright = spawn(bin('playwright'), ['test', '-c', config, ...options.playwright], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...(options.url && { E2E_BASE_URL: options.url.replace(/\/+$/, '') }) },
  });
  playwright.on('error', reject);
  playwright.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 130 : 1)));
});
process.exit(code);
