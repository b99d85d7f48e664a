// Podman's Docker-compatible API service on a socket of the workspace (.run/podman.sock), for
// Testcontainers: started detached once (setup does it where podman exists) and reused while it
// answers. `node tools/containers/src/podman-service.ts [ensure|stop|url]`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_DIR } from '../../scripts/lib/workspace.mjs';
import { CONTAINERS_CONF, red } from './exec.ts';

export const PODMAN_SOCKET = path.join(RUN_DIR, 'podman.sock');
const PID_FILE = path.join(RUN_DIR, 'podman-service.pid');
export const DOCKER_HOST = `unix://${PODMAN_SOCKET}`;

/** Whether a Docker API answers /_ping on the socket. */
export function answers(socket = PODMAN_SOCKET, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    if (!existsSync(socket)) return resolve(false);
    const request = http.get({ socketPath: socket, path: '/_ping', timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.on('timeout', () => {
      request.destroy();
      resolve(false);
    });
  });
}

export async function ensureService(): Promise<'running' | 'started'> {
  if (await answers()) return 'running';
  mkdirSync(RUN_DIR, { recursive: true });
  rmSync(PODMAN_SOCKET, { force: true });
  const log = openSync(path.join(RUN_DIR, 'podman-service.log'), 'a');
  const child = spawn('podman', ['system', 'service', '--time=0', DOCKER_HOST], {
    env: { ...process.env, CONTAINERS_CONF },
    stdio: ['ignore', log, log],
    detached: true,
  });
  child.unref();
  writeFileSync(PID_FILE, String(child.pid));
  for (let i = 0; i < 100; i++) {
    if (await answers()) return 'started';
    await sleep(100);
  }
  throw new Error(`podman system service did not answer on ${PODMAN_SOCKET} (see .run/podman-service.log)`);
}

export function stopService(): void {
  if (!existsSync(PID_FILE)) return;
  const pid = Number(readFileSync(PID_FILE, 'utf8'));
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
  rmSync(PID_FILE, { force: true });
}

const isMain = process.argv[1] === new URL(import.meta.url).pathname;
if (isMain) {
  const command = process.argv[2] ?? 'ensure';
  try {
    if (command === 'ensure') console.log(`${await ensureService()} ${DOCKER_HOST}`);
    else if (command === 'stop') stopService();
    else if (command === 'url') console.log(DOCKER_HOST);
    else throw new Error('usage: podman-service.ts [ensure|stop|url]');
  } catch (error) {
    console.error(red((error as Error).message));
    process.exit(1);
  }
}
