#!/usr/bin/env node
// `npm start`: install what is missing, build, start NATS, FerretDB and Mailpit, start every built service,
// and keep them running until Ctrl-C, which stops the services and then the infrastructure this
// run started (servers that were already running are left running).
// Usage: npm start -- [--no-build] [--free-ports]
//   PORT=<port>  the gateway's port (default 8080)
import { SERVICES, labelOf } from './lib/infra.ts';
import { bold, colorFor, dim, formatDuration, green, parseOptions, red, table, yellow } from './lib/log.ts';
import { isAlive } from './lib/proc.ts';
import { APPS, HEALTH_PATH, setupAndBuild, startStack, type Stack } from './lib/stack.ts';

const { values: options } = parseOptions(
  'Usage: npm start [-- --no-build] [-- --free-ports]   (PORT sets the gateway port, default 8080)',
  { 'no-build': { type: 'boolean' }, 'free-ports': { type: 'boolean' } },
);

// 1. Tools and packages (helm and chromium are only needed by npm test), and the build.
await setupAndBuild([], { build: !options['no-build'], stream: true });

// 2. Infrastructure and services.
const width = Math.max(...APPS.map((a) => a.name.length));
const prefix = Object.fromEntries(
  APPS.map((a, i) => [a.name, colorFor(i)(a.name.padEnd(width)) + dim(' │ ')]),
);
let stack: Stack | undefined;
let stopRequest: { reason: string; exitCode: number; at: number } | undefined; // the shutdown under way
const abort = new AbortController();

/** Asks for a shutdown: stops everything and exits, or, while starting, cancels the start. */
async function shutdown(reason: string, exitCode: number) {
  if (stopRequest) {
    // npm forwards the terminal's Ctrl-C too, so one key press can arrive twice.
    if (Date.now() - stopRequest.at > 1000) console.log(dim(`(${reason}: already stopping)`));
    return;
  }
  stopRequest = { reason, exitCode, at: Date.now() };
  abort.abort();
  // While starting, startStack stops what it started.
  if (!stack) return console.log(bold(`\n▸ Stopping (${reason}) while starting`));
  await stopEverything(stack, stopRequest);
}

/** Stops the services, then the infrastructure this run started, and exits with `exitCode`. */
async function stopEverything(running: Stack, { reason, exitCode }: { reason: string; exitCode: number }) {
  console.log(bold(`\n▸ Stopping (${reason})`));
  const started = Date.now();
  await running.stop();
  const stopped = running.startedInfra.map(labelOf);
  const left = SERVICES.map(labelOf).filter((label) => !stopped.includes(label));
  const names = [...running.apps.map((a) => a.name), ...stopped].join(', ') || 'nothing';
  const kept = left.length ? `; left ${left.join(' and ')} running (they ran before)` : '';
  console.log(dim(`  stopped ${names}${kept} (${formatDuration(Date.now() - started)})`));
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => shutdown(signal === 'SIGINT' ? 'Ctrl-C' : signal, 0));

const started = Date.now();
console.log(bold('▸ Starting'));
try {
  stack = await startStack({
    portsMode: options['free-ports'] ? 'free' : 'fixed-or-free',
    signal: abort.signal,
    onLine: (app, line) => console.log(prefix[app] + line),
    onExit: (app, how) => {
      console.error(red(bold(`\n!!! ${app} ${how} unexpectedly: stopping everything !!!\n`)));
      void shutdown(`${app} stopped`, 1);
    },
  });
} catch (error) {
  // Unless it was stopped while starting, the start failed; startStack has stopped what it started.
  if (stopRequest?.exitCode !== 0)
    console.error(red(bold(`\n✗ could not start: ${(error as Error).message}`)));
  process.exit(stopRequest?.exitCode ?? 1);
}
// Stopped right as the start finished.
if (stopRequest) await stopEverything(stack, stopRequest);

// 3. What runs where.
const rows = [[bold('what'), bold('where'), bold('')]];
for (const service of SERVICES) {
  const s = stack.infra[service];
  // Mailpit's web address is its inbox: the mail the services send (reset links) is read there.
  const extra = service === 'mail' ? `inbox ${s.monitorUrl}` : `monitor ${s.monitorUrl}`;
  const where = s.monitorUrl ? `${s.url}  ${service === 'mail' ? extra : dim(extra)}` : s.url;
  rows.push([
    labelOf(service),
    where,
    s.reused ? dim('already running, left running on exit') : green('started'),
  ]);
}
for (const app of stack.apps)
  rows.push([app.name, `${app.url}${app.name === 'gateway' ? '' : HEALTH_PATH}`, green('ready')]);
for (const name of stack.skipped) {
  rows.push([name, dim('-'), yellow(`not built (${APPS.find((a) => a.name === name)?.main} is missing)`)]);
}
console.log('\n' + table(rows) + '\n');
for (const note of stack.notes) console.log(yellow(`Note: ${note}`));
if (stack.url) console.log(bold(green(`Open ${stack.url}`)));
else if (stack.apps.length)
  console.log(yellow('The gateway is not built, so there is no web address to open yet.'));
else console.log(yellow('No service is built yet, so only the infrastructure runs.'));
console.log(`Mail inbox (reset links and notices go here): ${stack.infra.mail.monitorUrl}`);
console.log(
  dim(`Ready in ${formatDuration(Date.now() - started)}. Logs: .run/logs (servers). Press Ctrl-C to stop.`),
);

// Keep watching: if NATS, FerretDB or Mailpit goes away, say so as loudly as for a service; if the parent
// (npm) is gone, e.g. killed with SIGTERM, which its shell does not pass on, stop too.
const parentPid = process.ppid;
setInterval(() => {
  if (!stopRequest && process.ppid !== parentPid) void shutdown('the parent process exited', 0);
  for (const service of SERVICES) {
    const { pid } = stack.infra[service];
    if (!stopRequest && !isAlive(pid)) {
      console.error(
        red(bold(`\n!!! ${labelOf(service)} (pid ${pid}) stopped unexpectedly: stopping everything !!!\n`)),
      );
      stack.startedInfra = stack.startedInfra.filter((s) => s !== service);
      void shutdown(`${labelOf(service)} stopped`, 1);
    }
  }
}, 2_000);
