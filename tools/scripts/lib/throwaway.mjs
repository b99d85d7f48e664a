// Throwaway stacks of the end-to-end and benchmark runners: a directory under the OS temp dir with
// the stack's run and data directories and an owner.json naming the runner's pid and the services
// it started. A runner that dies without stopping its stack (SIGKILL, a crash of the machine) leaves
// that file behind; the next run of any runner with the same prefix stops what it names.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stopInfra } from './infra.mjs';
import { isRunning, stopProcess } from './proc.mjs';
import { APPS } from './stack.mjs';

const OWNER_FILE = 'owner.json';

/**
 * Stops the throwaway stacks of earlier runs whose owner is gone, then makes a new directory owned
 * by this process. `script` is the runner's file name (to tell its pid from a reused one).
 */
export async function makeThrowawayDir(prefix, script) {
  await reapAbandoned(prefix, script);
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const ownerFile = path.join(dir, OWNER_FILE);
  const writeOwner = (apps) => writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, apps }));
  writeOwner([]);
  return {
    dir,
    runDir: path.join(dir, 'run'),
    dataDir: path.join(dir, 'data'),
    /** Records the services a started stack runs, so that a later run can stop them. */
    recordStack(stack) {
      writeOwner(stack.apps.map((a) => ({ pid: a.pid, main: APPS.find((m) => m.name === a.name).main })));
    },
  };
}

async function reapAbandoned(prefix, script) {
  const tmp = os.tmpdir();
  const entries = (await readdir(tmp).catch(() => [])).filter((e) => e.startsWith(prefix));
  for (const entry of entries) {
    const dir = path.join(tmp, entry);
    let owner;
    try {
      owner = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being created right now, or not ours
    }
    if (isRunning(owner.pid, script)) continue;
    for (const app of owner.apps ?? []) {
      if (isRunning(app.pid, app.main)) await stopProcess(app.pid, { group: true, timeoutMs: 5000 });
    }
    await stopInfra({ runDir: path.join(dir, 'run') }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
