// Docker Compose (.tools/bin/docker-compose, built by `npm run setup -- --containers`) against
// podman's Docker API (.run/podman.sock): compose.yaml as any Compose user runs it. COMPOSE_FILE
// and COMPOSE_PROJECT_NAME work as Compose documents them (e.g. an override file for a second stack).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { DOCKER_COMPOSE_BIN, RUN_DIR } from '../../scripts/lib/workspace.ts';
import { exec, type ExecOptions, podman, ROOT } from './exec.ts';

type Dict<T = unknown> = Record<string, T>;

/** What the tools read of a service in `docker compose config` (the file resolved: anchors, variables). */
export interface ServiceSpec {
  image: string;
  environment?: Dict<string | null>;
  deploy?: { replicas?: number };
}

export interface ComposeFile {
  name: string;
  services: Dict<ServiceSpec>;
  /** Absolute paths once resolved. */
  secrets?: Dict<{ file: string }>;
}

/** The environment of every Compose command: podman's Docker API socket. */
const composeEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  DOCKER_HOST: `unix://${path.join(RUN_DIR, 'podman.sock')}`,
});

/** Runs `docker compose <args>` in the workspace; resolves its output, throws when it fails. */
export function dockerCompose(args: readonly string[], options: ExecOptions = {}) {
  return exec(DOCKER_COMPOSE_BIN, args, { cwd: ROOT, env: composeEnv(), ...options });
}

/** compose.yaml as Compose resolves it (`docker compose config`). */
export function loadCompose(): ComposeFile {
  const text = execFileSync(DOCKER_COMPOSE_BIN, ['config', '--format', 'json'], {
    cwd: ROOT,
    env: composeEnv(),
    encoding: 'utf8',
  });
  return JSON.parse(text) as ComposeFile;
}

export const containerName = (project: string, service: string, n: number): string =>
  `${project}-${service}-${n}`;

/** The container names of a service's replicas (`deploy.replicas`, 1 by default), first to last. */
export const replicaNames = (file: ComposeFile, service: string): string[] =>
  Array.from({ length: file.services[service]?.deploy?.replicas ?? 1 }, (_, i) =>
    containerName(file.name, service, i + 1),
  );

/** The project's containers: name and state (Compose labels them with their project). */
export async function containersOf(project: string) {
  const filter = `label=com.docker.compose.project=${project}`;
  const { stdout } = await podman(['ps', '--all', '--filter', filter, '--format', 'json']);
  const list = JSON.parse(stdout || '[]') as Array<{ Names: string[]; State: string }>;
  return list.map((c) => ({ name: c.Names[0] ?? '', state: c.State }));
}

/**
 * Starts the stack from the images `npm run images` built (no build, no pull); a container whose
 * configuration or image changed is recreated, one of a service no longer in the file removed.
 */
export async function up(): Promise<void> {
  await dockerCompose(['up', '--detach', '--no-build', '--pull', 'never', '--remove-orphans'], {
    inherit: true,
  });
}

/** Removes every container, the network and the volumes of the project. */
export async function down(): Promise<void> {
  await dockerCompose(['down', '--volumes', '--remove-orphans', '--timeout', '10'], { inherit: true });
}
