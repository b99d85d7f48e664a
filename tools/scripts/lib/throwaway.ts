// The runners that drive a throwaway stack (end-to-end tests, fuzzing, benchmark): their options,
// and the stack, in a directory under the OS temp dir with its run and data directories and an
// owner.json naming the runner's pid. A runner that dies without stopping its stack (SIGKILL, a
// crash of the machine) leaves the directory behind; the next run of any runner with the same
// prefix stops the services and servers its run directory records (runningStack, infra.json).
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stopInfra } from './infra.ts';
import { red } from './log.ts';
import { isRunning, stopProcess } from './proc.ts';
import { runningStack, SHARED_ADDRESS_LIMITS, SHORT_ARENAS, startStack, type Stack } from './stack.ts';

/**
 * A runner's command line: --no-build, --url <http://host:port> (a stack that already runs: nothing
 * is built or started) and --help; everything else (`rest`) goes to the tool it runs.
 */
export function runnerOptions(usage: string, args = process.argv.slice(2)) {
  const options = { build: true, url: undefined as string | undefined, rest: [] as string[] };
  const it = args.values();
  for (const arg of it) {
    if (arg === '--no-build') options.build = false;
    else if (arg === '--url') options.url = it.next().value ?? '';
    else if (arg.startsWith('--url=')) options.url = arg.slice('--url='.length);
    else if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else if (arg !== '--') options.rest.push(arg);
  }
  if (options.url !== undefined) options.url = baseUrl(options.url, usage);
  return options;
}

/** An address given with --url, without trailing slashes; one that is not http(s)://host prints `usage` and exits. */
export function baseUrl(url: string, usage: string): string {
  if (!/^https?:\/\/[^/]+/.test(url)) {
    console.error(red(`--url needs an address like http://127.0.0.1:8080\n${usage}`));
    process.exit(1);
  }
  return url.replace(/\/+$/, '');
}

interface ThrowawayOptions {
  prefix: string;
  script: string;
  logFile: string;
  onExit: (app: string, how: string) => void;
}

/**
 * `npm start`'s stack for a runner: on free ports in a throwaway directory (so it never meets a
 * developer's stack or data), every service built, and the gateway's limits raised, as every
 * client comes from 127.0.0.1. The services' output goes to `logFile`; `recent` keeps each one's
 * last 25 lines, to show when one dies (`onExit(app, how)`).
 * Returns { starting (resolves the stack), recent, stop() }; stop() stops the stack, or cancels its
 * start, and removes its directory.
 */
export function startThrowawayStack({ prefix, script, logFile, onExit }: ThrowawayOptions) {
  const abort = new AbortController();
  const recent: Record<string, string[]> = {};
  mkdirSync(path.dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const throwaway = makeThrowawayDir(prefix, script);
  const starting = throwaway.then(async (dirs) => {
    const stack = await startStack({
      portsMode: 'free',
      signal: abort.signal,
      runDir: dirs.runDir,
      dataDir: dirs.dataDir,
      extraEnv: { gateway: SHARED_ADDRESS_LIMITS, tournaments: SHORT_ARENAS },
      onLine: (app, line) => {
        log.write(`${app.padEnd(10)} | ${line}\n`);
        const tail = (recent[app] ??= []);
        tail.push(line);
        if (tail.length > 25) tail.shift();
      },
      onExit,
    });
    if (stack.skipped.length) {
      await stack.stop();
      throw new Error(`not built, so not started: ${stack.skipped.join(', ')} (build first)`);
    }
    return stack;
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      abort.abort();
      const stack: Stack | undefined = await starting.catch(() => undefined); // a failed start stopped what it started
      await stack?.stop().catch((error: Error) => console.error(`stopping the stack: ${error.message}`));
      await throwaway.then(({ dir }) => rm(dir, { recursive: true, force: true })).catch(() => undefined);
      await new Promise<void>((resolve) => log.end(resolve));
    })());
  return { starting, recent, stop };
}

const OWNER_FILE = 'owner.json';

/**
 * Stops the throwaway stacks of earlier runs whose owner is gone, then makes a new directory owned
 * by this process. `script` is the runner's file name (to tell its pid from a reused one).
 */
export async function makeThrowawayDir(prefix: string, script: string) {
  await reapAbandoned(prefix, script);
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid }));
  return { dir, runDir: path.join(dir, 'run'), dataDir: path.join(dir, 'data') };
}

async function reapAbandoned(prefix: string, script: string) {
  const tmp = os.tmpdir();
  const entries = (await readdir(tmp).catch(() => [])).filter((e) => e.startsWith(prefix));
  for (const entry of entries) {
    const dir = path.join(tmp, entry);
    let owner: { pid: number };
    try {
      owner = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being created right now, or not ours
    }
    if (isRunning(owner.pid, script)) continue;
    const runDir = path.join(dir, 'run');
    for (const app of runningStack(runDir)?.apps ?? []) {
      await stopProcess(app.pid, { group: true, timeoutMs: 5000 });
    }
    await stopInfra({ runDir }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
