// Child-process helpers shared by the command-line scripts (Node builtins only).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, readIfExists } from './workspace.ts';

interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  capture?: boolean;
  stdin?: 'ignore' | 'inherit';
  abort?: AbortSignal;
}

/**
 * Runs a command to completion. With `capture` its output is collected (and returned) instead of
 * shown: `stdout` alone, and `output`, stdout and stderr as they came, for the caller to print.
 * Resolves { code, signal, stdout, output }; rejects only when the command cannot be started, or
 * with an AbortError when `abort` stops it (SIGTERM).
 */
export function run(
  command: string,
  args: readonly string[] = [],
  { cwd = ROOT, env, capture = false, stdin = 'ignore', abort }: RunOptions = {},
): Promise<{ code: number; signal: NodeJS.Signals | null; stdout: string; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: [stdin, capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
      signal: abort,
    });
    let stdout = '';
    let output = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
      output += d;
    });
    child.stderr?.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), signal, stdout, output }),
    );
  });
}

/** Whether a command is on the PATH. */
export function hasCommand(name: string) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

export function isAlive(pid: number) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Alive and running the given executable (a path or a name its command line contains): a guard
 * against reused pids.
 */
export function isRunning(pid: number, executable: string) {
  if (!isAlive(pid)) return false;
  const cmdline = readIfExists(`/proc/${pid}/cmdline`);
  if (cmdline !== undefined) return cmdline.split('\0').join(' ').includes(executable);
  // No /proc (not Linux): ps, whose output is empty once the process is gone.
  const ps = spawnSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
  return ps.stdout?.includes(executable) ?? false;
}

/**
 * Stops a process: SIGTERM, wait up to `timeoutMs`, then SIGKILL. With `group` the whole process
 * group is signalled (for children spawned `detached`). Resolves true if it had to be killed.
 */
export async function stopProcess(pid: number, { timeoutMs = 10_000, group = false } = {}) {
  /** Sends `sig` and resolves whether the process is gone within `ms`. */
  const signal = async (sig: NodeJS.Signals, ms: number) => {
    try {
      process.kill(group ? -pid : pid, sig);
    } catch {
      // already gone
    }
    for (const deadline = Date.now() + ms; isAlive(pid) && Date.now() < deadline;) await sleep(50);
    return !isAlive(pid);
  };
  if (!isAlive(pid)) return false;
  if (await signal('SIGTERM', timeoutMs)) return false;
  await signal('SIGKILL', 2000);
  return true;
}

/** Calls `onLine` for every line a stream produces (and the last partial one at its end). */
export function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/**
 * Runs `fn` while holding a lock directory (mkdir is atomic), so two scripts do not install or
 * start the same thing at once. A lock left by a dead process is taken over.
 */
export async function withLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  { onWait }: { onWait?: (owner: number) => void } = {},
): Promise<T> {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  const pidFile = path.join(lockDir, 'pid');
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lockDir);
      writeFileSync(pidFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readIfExists(pidFile)) || 0; // none: being created or removed right now
      if (owner && owner !== process.pid && !isAlive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (attempt === 0) onWait?.(owner);
      await sleep(100);
    }
  }
  const release = () => rmSync(lockDir, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    release();
    process.removeListener('exit', release);
  }
}
