#!/usr/bin/env node
// The end-to-end tests' stack, which Playwright's webServer starts (apps/e2e/playwright.config.ts):
// `npm start`'s stack (NATS, FerretDB, the gateway serving the built web app, auth, rewards, rooms
// and game-timer) on free ports with throwaway run and data directories, so it never meets a
// developer's running stack or data, and with the gateway's limits raised (every browser of the
// scenarios comes from 127.0.0.1). Once every service answers its health check it prints
// "e2e stack ready at <url>", the line Playwright waits for and takes the address from.
// The services' output goes to .artifacts/e2e/stack.log. SIGTERM (Playwright's shutdown), SIGINT or
// SIGHUP stop everything; so does a service dying, after its last lines are printed.
import { createWriteStream, fstatSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { APPS, SHARED_ADDRESS_LIMITS, startStack } from './lib/stack.mjs';
import { makeThrowawayDir } from './lib/throwaway.mjs';
import { ROOT } from './lib/workspace.mjs';

const ARTIFACTS = path.join(ROOT, '.artifacts', 'e2e');

mkdirSync(ARTIFACTS, { recursive: true });
const log = createWriteStream(path.join(ARTIFACTS, 'stack.log'));
/** The last lines each service wrote, to show when one of them dies. */
const recent = {};
const abort = new AbortController();
const throwaway = await makeThrowawayDir('oasis-e2e-', 'e2e-stack.mjs');

const starting = startStack({
  portsMode: 'free',
  signal: abort.signal,
  runDir: throwaway.runDir,
  dataDir: throwaway.dataDir,
  extraEnv: { gateway: SHARED_ADDRESS_LIMITS },
  onLine: (app, line) => {
    log.write(`${app.padEnd(10)} | ${line}\n`);
    const tail = (recent[app] ??= []);
    tail.push(line);
    if (tail.length > 25) tail.shift();
  },
  onExit: (app, code, signal) => {
    console.error(
      `!!! ${app} ${signal ? `was killed by ${signal}` : `exited with code ${code}`}: stopping the stack`,
    );
    console.error(lastLines(app));
    void stop(1);
  },
});

let stopping;
/** Stops the stack (or cancels its start) once, removes its directories and exits. */
function stop(code) {
  stopping ??= (async () => {
    abort.abort();
    const stack = await starting.catch(() => undefined); // a failed start stopped what it started
    await stack?.stop().catch((error) => console.error(`stopping the stack: ${error.message}`));
    await rm(throwaway.dir, { recursive: true, force: true });
    await new Promise((resolve) => log.end(resolve));
    process.exit(code); // so that nothing after an `await stop()` runs
  })();
  return stopping;
}
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => void stop(0));
// Under Playwright, stdin is a pipe from the runner: its end means the runner is gone, even killed.
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) process.stdin.on('end', () => void stop(0)).resume();

function lastLines(app) {
  const lines = (recent[app] ?? []).join('\n');
  return `--- last lines of ${app} (all of them: .artifacts/e2e/stack.log)\n${lines}`;
}

let stack;
try {
  stack = await starting;
} catch (error) {
  // Unless a signal or a dying service (reported above) cancelled the start.
  if (!abort.signal.aborted) console.error(`the stack did not start: ${error.message}`);
  await stop(1);
}
throwaway.recordStack(stack);
const missing = APPS.map((a) => a.name).filter((name) => !stack.apps.some((app) => app.name === name));
if (missing.length) {
  console.error(`not built, so not started: ${missing.join(', ')} (npm run e2e builds first)`);
  await stop(1);
}
console.log(`e2e stack ready at ${stack.url} (services: ${stack.apps.map((a) => a.name).join(', ')})`);
