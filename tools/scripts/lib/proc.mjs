// Child-process helpers shared by the command-line scripts (Node builtins only).
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from './workspace.mjs';

/**
 * Runs a command to completion. With `capture` its output is collected (and returned) instead of
 * shown: `stdout` alone, and `output`, stdout and stderr as they came, for the caller to print.
 * Resolves { code, signal, stdout, output }; rejects only when the command cannot be started.
 * @param {string} command
 * @param {readonly string[]} [args]
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, capture?: boolean, stdin?: 'ignore' | 'inherit' }} [options]
 * @returns {Promise<{ code: number, signal: NodeJS.Signals | null, stdout: string, output: string }>}
 */
export function run(command, args = [], { cwd = ROOT, env, capture = false, stdin = 'ignore' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: [stdin, capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
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
export function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The command line of a running process ('' when unknown), to guard against reused pids. */
export function commandLineOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    try {
      return execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  }
}

/** Alive and running the given executable (a path or a name the command line contains). */
export function isRunning(pid, executable) {
  return isAlive(pid) && commandLineOf(pid).includes(executable);
}

/**
 * Stops a process: SIGTERM, wait up to `timeoutMs`, then SIGKILL. With `group` the whole process
 * group is signalled (for children spawned `detached`). Resolves true if it had to be killed.
 */
export async function stopProcess(pid, { timeoutMs = 10_000, group = false } = {}) {
  const signal = (sig) => {
    try {
      process.kill(group ? -pid : pid, sig);
    } catch {
      // already gone
    }
  };
  if (!isAlive(pid)) return false;
  signal('SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return false;
    await sleep(50);
  }
  signal('SIGKILL');
  for (let i = 0; i < 40 && isAlive(pid); i++) await sleep(50);
  return true;
}

/** Calls `onLine` for every line a stream produces (and the last partial one at its end). */
export function forEachLine(stream, onLine) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/**
 * Runs `fn` while holding a lock directory (mkdir is atomic), so two scripts do not install or
 * start the same thing at once. A lock left by a dead process is taken over.
 * @template T
 * @param {string} lockDir
 * @param {() => Promise<T>} fn
 * @param {{ onWait?: (owner: number) => void }} [options]
 * @returns {Promise<T>}
 */
export async function withLock(lockDir, fn, { onWait } = {}) {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  const pidFile = path.join(lockDir, 'pid');
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lockDir);
      writeFileSync(pidFile, String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let owner = 0;
      try {
        owner = Number(readFileSync(pidFile, 'utf8'));
      } catch {
        // being created or removed right now
      }
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
