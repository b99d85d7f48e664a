// The browser scenarios (src/*.e2e.ts) in Debian's Chromium against the whole system. Without
// E2E_BASE_URL, the webServer starts `npm start`'s stack on free ports with throwaway data
// (tools/scripts/e2e-stack.ts, on what is built: `npm run e2e` builds first) and stops it after the
// run; with E2E_BASE_URL (`npm run e2e -- --url <url>`, the container stage) they run against it.
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { E2E_ARTIFACTS } from './src/support/config';

const ROOT = path.resolve(__dirname, '../..');
const external = process.env['E2E_BASE_URL'];

export default defineConfig({
  testDir: 'src',
  testMatch: '*.e2e.ts',
  // E2E_SKIP: scenario files left out, by name (`npm test`'s end-to-end stage leaves out those its
  // container stage runs: SYSTEM_SCENARIOS in tools/scripts/lib/stack.ts).
  testIgnore: (process.env['E2E_SKIP'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((name) => `${name}.e2e.ts`),
  outputDir: E2E_ARTIFACTS,
  // One file at a time beside the stack on a 2-core machine, so the felt-latency figures measure one
  // game (`npm test` runs two at a time without that file: docs/adr/0032). Scenarios within a file
  // in order (Playwright's default: fullyParallel is off).
  workers: 1,
  // Real time passes (a 14 s turn runs out, the AI takes a seat after 30 s): scenarios that need
  // more than this set their own budget.
  timeout: 60_000,
  // What a push takes to show on every screen under load; expect.poll goes by it too (toPass does
  // not: each says its own).
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    // The webServer's ready line sets E2E_STACK_URL before the workers load this file.
    baseURL: external ?? process.env['E2E_STACK_URL'],
    locale: 'en-GB',
    // How long a single wait or action may take before it counts as a failure.
    actionTimeout: 10_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    // Debian's Chromium, installed by `npm run setup -- --chromium`, never downloaded, with the
    // switches this machine needs (Playwright adds some of them itself; saying them all keeps them
    // whatever its defaults become).
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: external
    ? undefined
    : {
        command: `"${process.execPath}" tools/scripts/e2e-stack.ts`,
        cwd: ROOT,
        // Named groups become variables: E2E_STACK_URL, and E2E_INBOX_URL (Mailpit's web inbox).
        wait: {
          stdout: /e2e stack ready at (?<e2e_stack_url>http:\/\/\S+) inbox (?<e2e_inbox_url>http:\/\/\S+)/,
        },
        // The stack's output shows beside the scenarios' (stderr does by default).
        stdout: 'pipe',
        // NATS, FerretDB and five services on a busy machine; stopping waits up to 10 s per service.
        timeout: 120_000,
        gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
      },
});
