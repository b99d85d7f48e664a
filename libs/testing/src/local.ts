import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { workspaceRoot } from './helpers';

/** A running local server as tools/scripts/infra.ts reports it. */
interface LocalServer {
  pid: number;
  url: string;
  /** Mailpit: its web inbox and API. */
  monitorUrl?: string;
}

export interface LocalInfra {
  natsUrl?: string;
  mongoUrl?: string;
  /** Mailpit's SMTP server (smtp://host:port) and its web inbox and API (http://host:port). */
  smtpUrl?: string;
  inboxUrl?: string;
  stop(): Promise<void>;
}

const TEMP_PREFIX = 'oasis-test-infra-';

/**
 * Starts nats-server and the FerretDB launcher from .tools/bin on free ports, with their data in a
 * fresh temporary directory that stop() removes.
 *
 * Starting, probing and stopping the servers is done by tools/scripts/infra.ts, the same code
 * `npm run infra` and `npm start` use, run here as a child process with its own run and data
 * directories. It is not imported: those scripts are ES modules with no dependencies (they run
 * before node_modules exists) and Jest loads CommonJS, so a child process is the one way to share
 * them without keeping a second copy of the process handling.
 */
export async function startLocalInfra(services: {
  nats: boolean;
  mongo: boolean;
  mail?: boolean;
}): Promise<LocalInfra> {
  const root = workspaceRoot();
  const script = path.join(root, 'tools', 'scripts', 'infra.ts');
  await reapAbandoned(script);

  const only = (['nats', 'mongo', 'mail'] as const).filter((s) => services[s]);
  const dir = await mkdtemp(path.join(os.tmpdir(), TEMP_PREFIX));
  await writeFile(path.join(dir, 'owner.pid'), String(process.pid));
  const dirs = ['--run-dir', path.join(dir, 'run'), '--data-dir', path.join(dir, 'data')];

  let started: { nats?: LocalServer; mongo?: LocalServer; mail?: LocalServer };
  try {
    started = JSON.parse(
      await infraCli(script, ['start', '--free-ports', '--json', '--only', only.join(','), ...dirs]),
    ) as typeof started;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const message = error instanceof Error ? error.message : String(error);
    const hint = /missing: run npm run setup/.test(message)
      ? ''
      : '\n(Local servers come from .tools/bin; run npm run setup if they are missing.)';
    throw new Error(`Cannot start the local test infrastructure: ${message}${hint}`);
  }

  // Last resort if stop() is never called (a suite without afterAll): don't leave servers behind.
  const pids = [started.nats?.pid, started.mongo?.pid, started.mail?.pid].filter(
    (pid): pid is number => !!pid,
  );
  const onExit = () => {
    for (const pid of pids) killQuietly(pid);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  let stopping: Promise<void> | undefined;
  return {
    natsUrl: started.nats?.url,
    mongoUrl: started.mongo?.url,
    smtpUrl: started.mail?.url,
    inboxUrl: started.mail?.monitorUrl,
    stop: () =>
      (stopping ??= (async () => {
        process.removeListener('exit', onExit);
        try {
          await infraCli(script, ['stop', '--json', ...dirs]);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      })()),
  };
}

function infraCli(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { timeout: 90_000 }, (error, stdout, stderr) => {
      if (error) {
        const detail = stderr.trim() || error.message; // not a terminal, so no colour codes
        reject(new Error(detail.replace(/^infra: /, '')));
      } else {
        resolve(stdout);
      }
    });
  });
}

/** Stops servers left by test runs that died without stopping them (their owner pid is gone). */
async function reapAbandoned(script: string): Promise<void> {
  const tmp = os.tmpdir();
  const entries = await readdir(tmp).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => e.startsWith(TEMP_PREFIX))) {
    const dir = path.join(tmp, entry);
    const owner = Number(await readFile(path.join(dir, 'owner.pid'), 'utf8').catch(() => '0'));
    if (!owner || isAlive(owner)) continue;
    await infraCli(script, ['stop', '--run-dir', path.join(dir, 'run')]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
