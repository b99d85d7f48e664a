import type { StartedTestContainer } from 'testcontainers';

export interface ContainerInfra {
  natsUrl?: string;
  mongoUrl?: string;
  stop(): Promise<void>;
}

export const NATS_IMAGE = 'nats:2.14-alpine';
export const MONGO_IMAGE = 'mongo:7';

/**
 * Whether a container engine answers within `timeoutMs`. Testcontainers tries its strategies
 * (DOCKER_HOST, ~/.testcontainers.properties, the usual sockets) and fails fast when there is
 * none; the timeout covers a socket whose daemon hangs.
 */
export async function containerRuntimeAvailable(timeoutMs = 5_000): Promise<boolean> {
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

/** Starts the official NATS (with JetStream) and MongoDB images. */
export async function startContainerInfra(services: {
  nats: boolean;
  mongo: boolean;
}): Promise<ContainerInfra> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const startNats = async () =>
    new GenericContainer(NATS_IMAGE)
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
  const startMongo = async () =>
    new GenericContainer(MONGO_IMAGE)
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();

  const [nats, mongo] = await Promise.allSettled([
    services.nats ? startNats() : Promise.resolve(undefined),
    services.mongo ? startMongo() : Promise.resolve(undefined),
  ]);
  const started = [nats, mongo]
    .map((r) => (r.status === 'fulfilled' ? r.value : undefined))
    .filter((c): c is StartedTestContainer => !!c);
  const stop = async () => {
    await Promise.all(started.map((c) => c.stop()));
  };
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
