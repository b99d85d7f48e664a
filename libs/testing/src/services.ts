import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { workspaceRoot } from './helpers';
import { freePort, waitFor } from './node-only/net';

/** The back-end services a test can run as processes of their own, from their build output. */
export type ServiceName = 'auth' | 'rewards' | 'rooms' | 'game-timer' | 'tournaments';

/** One service running as its own process, as in production (see startServiceProcess). */
export interface ServiceProcess {
  readonly name: ServiceName;
  readonly pid: number;
  /** Its health and metrics address (HTTP_PORT). */
  readonly url: string;
  /** SIGTERM, as a rollout sends it; resolves once the process has exited after its graceful shutdown. */
  stop(): Promise<void>;
  /** SIGKILL: the process dies where it stands (a crash, an OOM kill); resolves once it is gone. */
  kill(): Promise<void>;
}

/** Lines of a service's output kept to explain a failed start. */
const KEPT_LINES = 40;

/**
 * Starts a service from its build output (dist/apps/<name>/main.js, built by `nx build <name>`;
 * the integration targets that use this depend on those builds) with `env` and a free HTTP_PORT,
 * and resolves once GET /health answers 200. The test process shares nothing with it but NATS and
 * the database, so a test cannot reach into it, and stopping or killing it is what it would be in
 * a cluster. A process still running when the test process exits is killed. With SERVICE_LOG_DIR
 * set, each process's whole output is also kept there (`<name>-<pid>.log`), to read after a failure.
 */
export async function startServiceProcess(
  name: ServiceName,
  env: Record<string, string>,
  { readyTimeoutMs = 60_000 } = {},
): Promise<ServiceProcess> {
  const main = path.join(workspaceRoot(), 'dist', 'apps', name, 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build it first (npx nx build ${name})`);
  // The port is free when chosen, but a socket of the busy test run can take it before the
  // service binds it: that start alone is tried again, on another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(name, main, env, await freePort(), readyTimeoutMs);
    } catch (error) {
      if (attempt >= 4 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

async function launch(
  name: ServiceName,
  main: string,
  env: Record<string, string>,
  port: number,
  readyTimeoutMs: number,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env['PATH'] ?? '', ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - KEPT_LINES));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const logDir = process.env['SERVICE_LOG_DIR'];
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    const file = createWriteStream(path.join(logDir, `${name}-${child.pid ?? 'unknown'}.log`));
    child.stdout.pipe(file, { end: false });
    child.stderr.pipe(file, { end: false });
    child.once('close', () => file.end());
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));

  const url = `http://127.0.0.1:${port}`;
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new ExitedError();
        return (await fetch(`${url}/health`)).status === 200;
      },
      { timeoutMs: readyTimeoutMs, intervalMs: 100, what: `${name} to answer /health` },
    );
  } catch (error) {
    await end('SIGKILL');
    const why =
      error instanceof ExitedError ? `exited with ${child.exitCode ?? child.signalCode}` : String(error);
    const message = `${name} did not start: ${why}\n${output.join('\n')}`;
    const portTaken = error instanceof ExitedError && output.some((line) => line.includes('EADDRINUSE'));
    throw portTaken ? new PortTakenError(message) : new Error(message);
  }
  return {
    name,
    pid: child.pid as number,
    url,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

class PortTakenError extends Error {}
class ExitedError extends Error {}
