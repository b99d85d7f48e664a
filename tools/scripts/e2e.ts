#!/usr/bin/env node
// `npm run e2e`: the browser end-to-end tests against the whole system, run as `npm start` runs it.
//   1. setup (packages, local servers, Debian's chromium) and build every project;
//   2. `playwright test` with apps/e2e/playwright.config.ts: its webServer starts a throwaway stack
//      (tools/scripts/e2e-stack.ts) before the scenarios and stops it after them.
// With --url nothing is built or started: the scenarios run against that stack (E2E_BASE_URL).
// Screenshots go to .artifacts/e2e/<number>-<file>/, the services' output to .artifacts/e2e/stack.log; a
// failing scenario leaves Playwright's trace and a screenshot of every open page in .artifacts/e2e/.
//
// Usage: node tools/scripts/e2e.ts [--no-build] [--url <http://host:port>] [playwright test options...]
//   --no-build   use what is built
//   --url        run against a stack that is already running
//   anything else goes to `playwright test`, e.g. -g "Account flows" or a file name such as latency
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { bold } from './lib/log.ts';
import { setupAndBuild } from './lib/stack.ts';
import { runnerOptions } from './lib/throwaway.ts';
import { ROOT, npmBin } from './lib/workspace.ts';

const options = runnerOptions(
  'Usage: npm run e2e [-- --no-build] [-- --url <http://host:port>] [-- <playwright test options>]',
);

// Playwright stops gracefully (its webServer's stack included) on SIGINT only: other signals are
// passed on as SIGINT; a terminal's Ctrl-C reaches it directly (it ignores the repeat).
let playwright: ChildProcess | undefined = undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => (playwright ? playwright.kill('SIGINT') : process.exit(130)));
}

// Debian's chromium, which setup installs when it is missing.
await setupAndBuild(['--chromium'], { build: options.build && !options.url });

console.log(bold('▸ Scenarios'));
const config = path.join('apps', 'e2e', 'playwright.config.ts');
playwright = spawn(npmBin('playwright'), ['test', '-c', config, ...options.rest], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, ...(options.url && { E2E_BASE_URL: options.url }) },
});
playwright.on('error', (error) => {
  console.error(error.message);
  process.exit(1);
});
playwright.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
