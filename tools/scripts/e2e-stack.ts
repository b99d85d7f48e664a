#!/usr/bin/env node
// The end-to-end tests' stack, which Playwright's webServer starts (apps/e2e/playwright.config.ts):
// `npm start`'s stack (NATS, FerretDB, Mailpit, the gateway serving the built web app, auth, rewards, rooms
// and game-timer) on free ports with throwaway run and data directories, so it never meets a
// developer's running stack or data, and with the gateway's limits raised (every browser of the
// scenarios comes from 127.0.0.1). Once every service answers its health check it prints
// "e2e stack ready at <url> inbox <url>", the line Playwright waits for and takes the addresses from.
// The services' output goes to .artifacts/e2e/stack.log. SIGTERM (Playwright's shutdown), SIGINT or
// SIGHUP stop everything; so does a service dying, after its last lines are printed.
import { fstatSync } from 'node:fs';
import path from 'node:path';
import { startThrowawayStack } from './lib/throwaway.ts';
import { ROOT } from './lib/workspace.ts';

let stopRequested = false;
const throwaway = startThrowawayStack({
  prefix: 'oasis-e2e-',
  script: 'e2e-stack.ts',
  logFile: path.join(ROOT, '.artifacts', 'e2e', 'stack.log'),
  onExit: (app, how) => {
    console.error(`!!! ${app} ${how}: stopping the stack`);
    console.error(`--- last lines of ${app} (all of them: .artifacts/e2e/stack.log)`);
    console.error((throwaway.recent[app] ?? []).join('\n'));
    void stop(1);
  },
});

/** Stops the stack (or cancels its start) and exits. */
async function stop(code: number): Promise<never> {
  stopRequested = true;
  await throwaway.stop();
  process.exit(code); // so that nothing after an `await stop()` runs
}
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => void stop(0));
// Under Playwright, stdin is a pipe from the runner: its end means the runner is gone, even killed.
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) process.stdin.on('end', () => void stop(0)).resume();

const stack = await throwaway.starting.catch((error) => {
  // Unless a signal or a dying service (reported above) cancelled the start.
  if (!stopRequested) console.error(`the stack did not start: ${error.message}`);
  return stop(1);
});
// The inbox: the scenarios read the mail auth sends (reset links) through Mailpit's API.
console.log(
  `e2e stack ready at ${stack.url} inbox ${stack.infra.mail.monitorUrl} (services: ${stack.apps.map((a) => a.name).join(', ')})`,
);
