// Podman's Docker-compatible API service on a socket of the workspace (.run/podman.sock), for
// Testcontainers: started detached once (setup does it where podman exists) and reused while it
// answers: `node tools/containers/src/podman-service.ts` prints `running` or `started` and the URL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { waitFor } from '../../scripts/lib/net.ts';
import { RUN_DIR } from '../../scripts/lib/workspace.ts';
import { CONTAINERS_CONF, red } from './exec.ts';

const PODMAN_SOCKET = path.join(RUN_DIR, 'podman.sock');
const DOCKER_HOST = `unix://${PODMAN_SOCKET}`;

/** Whether a Docker API answers /_ping on the socket. */
async function answers(socketPath = PODMAN_SOCKET, timeout = 2000): Promise<boolean> {
  if (!existsSync(socketPath)) return false;
  const request = http.get({ socketPath, path: '/_ping', timeout }).on('timeout', () => request.destroy());
  const [response] = (await once(request, 'response').catch(() => [])) as [http.IncomingMessage?];
  response?.resume();
  return response?.statusCode === 200;
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
  await waitFor(() => answers(), {
    timeoutMs: 10_000,
    what: `podman system service on ${PODMAN_SOCKET} (see .run/podman-service.log)`,
  });
  return 'started';
}

if (import.meta.main) {
  try {
    console.log(`${await ensureService()} ${DOCKER_HOST}`);
  } catch (error) {
    console.error(red((error as Error).message));
    process.exit(1);
  }
}
