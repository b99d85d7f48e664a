#!/usr/bin/env node
// `npm start`: install what is missing, build, start NATS and FerretDB, start every built service,
// and keep them running until Ctrl-C, which stops the services and then the infrastructure this
// run started (servers that were already running are left running).
// Usage: node tools/scripts/start.mjs [--no-build] [--free-ports]
//   PORT=<port>  the gateway's port (default 8080)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { labelOf } from './lib/infra.mjs';
import { bold, colorFor, dim, formatDuration, green, red, table, yellow } from './lib/log.mjs';
import { isAlive, run } from './lib/proc.mjs';
import { APPS, HEALTH_PATH, startStack } from './lib/stack.mjs';
import { ROOT } from './lib/workspace.mjs';

let options;
try {
  options = parseArgs({
    options: {
      'no-build': { type: 'boolean' },
      'free-ports': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (error) {
  console.error(red(error.message));
  process.exit(1);
}
if (options.help) {
  console.log(
    'Usage: npm start [-- --no-build] [-- --free-ports]   (PORT sets the gateway port, default 8080)',
  );
  process.exit(0);
}

const nx = path.join(ROOT, 'node_modules', '.bin', 'nx');
const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };

function fail(message) {
  console.error(red(bold(`\n✗ ${message}`)));
  process.exit(1);
}

async function stage(title, fn) {
  const started = Date.now();
  console.log(bold(`▸ ${title}`));
  const note = await fn();
  console.log(dim(`  ${note ? `${note} ` : ''}(${formatDuration(Date.now() - started)})`));
}

// 1. Tools and packages (helm and chromium are only needed by npm test).
await stage('Setup', async () => {
  const result = await run(process.execPath, [path.join(ROOT, 'tools/scripts/setup.mjs'), '--quiet']);
  if (result.code !== 0) fail('setup failed (see above)');
  return 'tools and packages are in place';
});

// 2. Build everything that has a build target.
if (options['no-build']) {
  console.log(dim('▸ Build skipped (--no-build)'));
} else {
  await stage('Build', async () => {
    const list = await run(nx, ['show', 'projects', '--with-target', 'build'], {
      capture: true,
      env: NX_ENV,
    });
    if (list.code !== 0) fail(`cannot list the projects:\n${list.output}`);
    const projects = list.output
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^[\w@/.-]+$/.test(l));
    if (projects.length === 0) return 'no project has a build target yet: nothing to build';
    const build = await run(nx, ['run-many', '-t', 'build'], { env: NX_ENV });
    if (build.code !== 0)
      fail('the build failed (see above); fix it, or run npm start -- --no-build to start what is built');
    return `built ${projects.join(', ')}`;
  });
}

// 3. Infrastructure and services.
const width = Math.max(...APPS.map((a) => a.name.length));
const prefix = Object.fromEntries(
  APPS.map((a, i) => [a.name, colorFor(i)(a.name.padEnd(width)) + dim(' │ ')]),
);
let stack;
let shuttingDown = 0; // when the shutdown began
let stopRequest; // { reason, exitCode } of that shutdown
const abort = new AbortController();

async function shutdown(reason, exitCode) {
  if (shuttingDown) {
    // npm forwards the terminal's Ctrl-C too, so one key press can arrive twice.
    if (Date.now() - shuttingDown > 1000) console.log(dim(`(${reason}: already stopping)`));
    return;
  }
  shuttingDown = Date.now();
  stopRequest = { reason, exitCode };
  abort.abort();
  if (!stack) {
    console.log(bold(`\n▸ Stopping (${reason}) while starting`)); // startStack stops what it started
    return;
  }
  console.log(bold(`\n▸ Stopping (${reason})`));
  const started = Date.now();
  await stack.stop();
  const left = ['nats', 'mongo'].filter((s) => !stack.startedInfra.includes(s)).map(labelOf);
  const stopped = stack.startedInfra.map(labelOf);
  console.log(
    dim(
      `  stopped ${[...stack.apps.map((a) => a.name), ...stopped].join(', ') || 'nothing'}` +
        (left.length ? `; left ${left.join(' and ')} running (they ran before)` : '') +
        ` (${formatDuration(Date.now() - started)})`,
    ),
  );
  process.exit(exitCode);
}

process.on('SIGINT', () => shutdown('Ctrl-C', 0));
process.on('SIGTERM', () => shutdown('SIGTERM', 0));
process.on('SIGHUP', () => shutdown('SIGHUP', 0));

const started = Date.now();
console.log(bold('▸ Starting'));
try {
  stack = await startStack({
    portsMode: options['free-ports'] ? 'free' : 'fixed-or-free',
    signal: abort.signal,
    onLine: (app, line) => console.log(prefix[app] + line),
    onExit: (app, code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      console.error(red(bold(`\n!!! ${app} ${how} unexpectedly: stopping everything !!!\n`)));
      void shutdown(`${app} stopped`, 1);
    },
  });
} catch (error) {
  if (!shuttingDown) fail(`could not start: ${error.message}`);
  // Stopped while starting; startStack has stopped what it started.
  if (stopRequest.exitCode !== 0) console.error(red(error.message));
  process.exit(stopRequest.exitCode);
}
if (shuttingDown) {
  // Stopped right as the start finished.
  shuttingDown = 0;
  await shutdown(stopRequest.reason, stopRequest.exitCode);
}

// 4. What runs where.
const rows = [[bold('what'), bold('where'), bold('')]];
for (const service of ['nats', 'mongo']) {
  const s = stack.infra[service];
  const where = s.monitorUrl ? `${s.url}  ${dim(`monitor ${s.monitorUrl}`)}` : s.url;
  rows.push([
    labelOf(service),
    where,
    s.reused ? dim('already running, left running on exit') : green('started'),
  ]);
}
for (const app of stack.apps)
  rows.push([app.name, `${app.url}${app.name === 'gateway' ? '' : HEALTH_PATH}`, green('ready')]);
for (const name of stack.skipped) {
  const main = APPS.find((a) => a.name === name).main;
  const why = existsSync(path.join(ROOT, 'apps', name))
    ? `not built (${main} is missing)`
    : 'not written yet';
  rows.push([name, dim('-'), yellow(why)]);
}
console.log('\n' + table(rows) + '\n');
for (const note of stack.notes) console.log(yellow(`Note: ${note}`));
if (stack.apps.length === 0) {
  console.log(yellow('No service is built yet, so only the infrastructure runs.'));
} else if (stack.url) {
  console.log(bold(green(`Open ${stack.url}`)));
} else {
  console.log(yellow('The gateway is not built, so there is no web address to open yet.'));
}
console.log(
  dim(`Ready in ${formatDuration(Date.now() - started)}. Logs: .run/logs (servers). Press Ctrl-C to stop.`),
);

// Keep watching: if NATS or FerretDB goes away, say so as loudly as for a service; if the parent
// (npm) is gone, e.g. killed with SIGTERM, which its shell does not pass on, stop too.
const parentPid = process.ppid;
setInterval(() => {
  if (!shuttingDown && process.ppid !== parentPid) void shutdown('the parent process exited', 0);
  for (const service of ['nats', 'mongo']) {
    const { pid } = stack.infra[service];
    if (!shuttingDown && !isAlive(pid)) {
      console.error(
        red(bold(`\n!!! ${labelOf(service)} (pid ${pid}) stopped unexpectedly: stopping everything !!!\n`)),
      );
      stack.startedInfra = stack.startedInfra.filter((s) => s !== service);
      void shutdown(`${labelOf(service)} stopped`, 1);
    }
  }
}, 2_000);
