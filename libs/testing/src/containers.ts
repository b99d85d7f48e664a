import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { GenericContainer, StartedTestContainer } from 'testcontainers';
import { workspaceRoot } from './helpers';

export interface ContainerInfra {
  natsUrl?: string;
  mongoUrl?: string;
  stop(): Promise<void>;
}

/**
 * The images, in order of preference: the ones `npm run images` (or setup) builds here from
 * tools/docker (NATS, and the FerretDB launcher the local stack runs), else the official ones,
 * which an engine with registry access pulls. OASIS_TEST_NATS_IMAGE / OASIS_TEST_MONGO_IMAGE
 * choose others.
 */
export const NATS_IMAGES = ['localhost/oasis198/nats:local', 'nats:2.14-alpine'];
export const MONGO_IMAGES = ['localhost/oasis198/ferretdb:local', 'mongo:7'];

/** Containers of a test run carry the pid of the process that started them, to reap leftovers. */
const OWNER_LABEL = 'org.oasis198.test-owner';

/** Podman's API service that setup starts in the workspace (tools/containers/src/podman-service.ts). */
export const workspacePodmanSocket = (): string => path.join(workspaceRoot(), '.run', 'podman.sock');

/**
 * Points Testcontainers at a Docker API: DOCKER_HOST when set, else the workspace's podman socket
 * when it exists (Testcontainers' own lookup covers /var/run/docker.sock and the rest). Ryuk, its
 * clean-up container, cannot be pulled where no image can be: containers are then removed by
 * stop(), by an exit hook, and by the next run for an owner that died.
 */
function configureEnvironment(): void {
  if (!process.env['DOCKER_HOST'] && existsSync(workspacePodmanSocket())) {
    process.env['DOCKER_HOST'] = `unix://${workspacePodmanSocket()}`;
  }
  if (process.env['DOCKER_HOST']?.includes('podman')) {
    process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';
  }
}

/**
 * Whether a container engine answers within `timeoutMs`. Testcontainers tries its strategies
 * (DOCKER_HOST, ~/.testcontainers.properties, the usual sockets) and fails fast when there is
 * none; the timeout covers a socket whose daemon hangs.
 */
export async function containerRuntimeAvailable(timeoutMs = 5_000): Promise<boolean> {
  configureEnvironment();
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([getContainerRuntimeClient().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The first image of the list the engine has, else the last one (pulled on start). */
async function chooseImage(candidates: readonly string[], override: string | undefined): Promise<string> {
  if (override) return override;
  const { getContainerRuntimeClient, ImageName } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  for (const image of candidates) {
    if (await client.image.exists(ImageName.fromString(image))) return image;
  }
  return candidates[candidates.length - 1] as string;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes containers left by test runs whose process is gone (killed before stop()). */
async function reapAbandoned(): Promise<void> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const leftovers = await client.container.list();
  for (const info of leftovers) {
    const owner = Number(info.Labels?.[OWNER_LABEL] ?? 0);
    if (owner && !isAlive(owner)) {
      await client.container
        .getById(info.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    }
  }
}

/** Labels one attempt at starting a container, to remove it when its start fails. */
const ATTEMPT_LABEL = 'org.oasis198.test-attempt';
const LEFT_BEHIND = ['created', 'running', 'paused', 'exited'] as const;

/**
 * The engine picks a free host port for each exposed port and binds it a moment later; another
 * socket (any outgoing connection of a busy test run takes an ephemeral port) can get it in
 * between, and the start fails with "address already in use". That is the only failure worth
 * another try: the container that failed is removed, and a new one gets other ports.
 */
export async function startWithFreshPorts(
  build: () => GenericContainer,
  attempts = 4,
): Promise<StartedTestContainer> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  for (let attempt = 1; ; attempt++) {
    const id = randomUUID();
    try {
      return await build()
        .withLabels({ [ATTEMPT_LABEL]: id })
        .start();
    } catch (error) {
      // Testcontainers removes a container that started but never got ready, not one whose start
      // failed: that one stays behind, created.
      const client = await getContainerRuntimeClient();
      const failed = await client.container.fetchByLabel(ATTEMPT_LABEL, id, { status: [...LEFT_BEHIND] });
      await failed?.remove({ force: true, v: true }).catch(() => undefined);
      if (attempt >= attempts || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

/** Starts NATS (with JetStream) and a MongoDB-compatible server as containers. */
export async function startContainerInfra(services: {
  nats: boolean;
  mongo: boolean;
}): Promise<ContainerInfra> {
  configureEnvironment();
  const { GenericContainer, Wait } = await import('testcontainers');
  await reapAbandoned();
  const labels = { [OWNER_LABEL]: String(process.pid) };
  const startNats = async () => {
    const image = await chooseImage(NATS_IMAGES, process.env['OASIS_TEST_NATS_IMAGE']);
    return startWithFreshPorts(() =>
      new GenericContainer(image)
        .withLabels(labels)
        .withCommand(['--jetstream', '--store_dir=/data', '--http_port=8222'])
        // Every port the image exposes gets a host port: podman reports an exposed but unbound
        // port (our image's 8222) as unbound, and Testcontainers would wait for it forever.
        .withExposedPorts(4222, 8222)
        .withWaitStrategy(Wait.forLogMessage(/Server is ready/)),
    );
  };
  const startMongo = async () => {
    const image = await chooseImage(MONGO_IMAGES, process.env['OASIS_TEST_MONGO_IMAGE']);
    return startWithFreshPorts(() =>
      new GenericContainer(image)
        .withLabels(labels)
        .withExposedPorts(27017)
        .withTmpFs({ '/tmp': 'rw,mode=1777' })
        .withWaitStrategy(
          // The launcher's image is FROM scratch: no shell for a port probe inside it.
          Wait.forLogMessage(image.includes('oasis198') ? /listening on/ : /Waiting for connections/),
        ),
    );
  };

  const [nats, mongo] = await Promise.allSettled([
    services.nats ? startNats() : Promise.resolve(undefined),
    services.mongo ? startMongo() : Promise.resolve(undefined),
  ]);
  const started = [nats, mongo]
    .map((r) => (r.status === 'fulfilled' ? r.value : undefined))
    .filter((c): c is StartedTestContainer => !!c);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    await Promise.all(started.map((c) => c.stop({ remove: true, removeVolumes: true })));
  };
  // Last resort when stop() is never called: no container outlives the test process.
  const onExit = () => {
    for (const container of started) {
      try {
        execFileSync('podman', ['rm', '--force', '--volumes', container.getId()], { stdio: 'ignore' });
      } catch {
        // not podman, or already gone; the next run reaps it by its owner label
      }
    }
  };
  process.once('exit', onExit);
  const failed = [nats, mongo].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }

  const natsContainer = nats.status === 'fulfilled' ? nats.value : undefined;
  const mongoContainer = mongo.status === 'fulfilled' ? mongo.value : undefined;
  return {
    natsUrl: natsContainer && `nats://${natsContainer.getHost()}:${natsContainer.getMappedPort(4222)}`,
    mongoUrl:
      mongoContainer && `mongodb://${mongoContainer.getHost()}:${mongoContainer.getMappedPort(27017)}`,
    stop,
  };
}
