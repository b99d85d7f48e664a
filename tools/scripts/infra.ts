#!/usr/bin/env node
// Local NATS (JetStream) and FerretDB for development: start, stop, status.
// Usage: npm run infra -- start|stop|status [options]
//   --free-ports      let the OS pick free ports instead of 4222/8222/27017 (NATS_PORT,
//                     NATS_MONITOR_PORT and MONGO_PORT override the defaults)
//   --only <list>     comma-separated subset of: nats, mongo
//   --run-dir <dir>   where infra.json and logs go (default .run)
//   --data-dir <dir>  where the servers keep their data (default .data)
//   --json            print the result as JSON on stdout (for other programs)
import path from 'node:path';
import { SERVICES, infraStatus, isService, labelOf, startInfra, stopInfra } from './lib/infra.ts';
import type { ServerEntry } from './lib/infra.ts';
import { dim, green, parseOptions, red, table, yellow } from './lib/log.ts';
import { DATA_DIR, RUN_DIR } from './lib/workspace.ts';

const USAGE = 'Usage: npm run infra -- start|stop|status [--free-ports] [--only nats,mongo] [--json]';
const { values, positionals } = parseOptions(
  USAGE,
  {
    'free-ports': { type: 'boolean' },
    only: { type: 'string' },
    'run-dir': { type: 'string' },
    'data-dir': { type: 'string' },
    json: { type: 'boolean' },
  },
  { allowPositionals: true },
);
const command = positionals[0] ?? '';
if (positionals.length !== 1 || !['start', 'stop', 'status'].includes(command)) exit(USAGE);

const runDir = path.resolve(values['run-dir'] ?? RUN_DIR);
const dataDir = path.resolve(values['data-dir'] ?? DATA_DIR);
const named = values.only?.split(',').map((s) => s.trim()) ?? SERVICES;
const unknown = named.find((name) => !isService(name));
if (unknown !== undefined) exit(`unknown service "${unknown}" in --only (known: ${SERVICES.join(', ')})`);
const services = named.filter(isService);
const rel = (file: string) => path.relative(process.cwd(), file) || '.';

try {
  if (command === 'start') {
    const infra = await startInfra({
      runDir,
      dataDir,
      services,
      portsMode: values['free-ports'] ? 'free' : 'fixed',
    });
    if (values.json) {
      console.log(JSON.stringify(infra));
    } else {
      const rows = services.map((service) => {
        const s = infra[service] as ServerEntry; // startInfra started (or reused) each one
        const extra = s.monitorUrl ? `  monitor ${s.monitorUrl}` : '';
        const how = s.reused ? dim('already running') : green('started');
        return [labelOf(service), s.url + extra, `pid ${s.pid}`, how, dim(rel(s.log))];
      });
      console.log(table(rows));
      for (const note of infra.notes) console.log(yellow(note));
    }
  } else if (command === 'stop') {
    const outcomes = await stopInfra({ runDir, services });
    if (values.json) console.log(JSON.stringify(outcomes));
    else if (outcomes.length === 0) console.log('Nothing to stop: no local infrastructure is recorded.');
    else for (const o of outcomes) console.log(`${labelOf(o.service)} (pid ${o.pid}): ${o.outcome}`);
  } else {
    const status = await infraStatus({ runDir });
    if (values.json) {
      console.log(JSON.stringify(status));
    } else if (status.length === 0) {
      console.log('Not running (nothing recorded in ' + rel(path.join(runDir, 'infra.json')) + ').');
    } else {
      const rows = status.map((s) => {
        const state = s.healthy ? green('running') : s.running ? yellow('not answering') : red('not running');
        const extra = s.monitorUrl ? `  monitor ${s.monitorUrl}` : '';
        return [s.label, s.url + extra, `pid ${s.pid}`, state, dim(`since ${s.startedAt}`), dim(rel(s.log))];
      });
      console.log(table(rows));
      if (status.some((s) => !s.healthy)) process.exitCode = 1;
    }
  }
} catch (error) {
  exit((error as Error).message);
}

function exit(message: string): never {
  console.error(red(`infra: ${message}`));
  process.exit(1);
}
