import { containerRuntimeAvailable, startContainerInfra } from './containers';
import { mongoBaseUrl, mongoUrlWithDb, uniqueName } from './helpers';
import { startLocalInfra } from './local';

/** A real NATS server (with JetStream) and a real MongoDB-compatible server for tests. */
export interface TestInfra {
  /** e.g. nats://127.0.0.1:4222 ('' when NATS was not requested). */
  natsUrl: string;
  /** base URL without db name, e.g. mongodb://127.0.0.1:12345 ('' when MongoDB was not requested). */
  mongoUrl: string;
  /** env: NATS_URL/MONGO_URL given; containers: Docker via Testcontainers; local: .tools/bin binaries. */
  mode: 'env' | 'containers' | 'local';
  /** Stops what startTestInfra started (a no-op in mode 'env'). Safe to call twice. */
  stop(): Promise<void>;
}

export interface TestInfraOptions {
  /** Start NATS (default true). */
  nats?: boolean;
  /** Start MongoDB (default true). */
  mongo?: boolean;
}

/**
 * Provides NATS and MongoDB, in this order of choice:
 * 1. NATS_URL and MONGO_URL (those requested) are set: use them (mode 'env');
 * 2. a Docker engine answers: official images nats:2.14-alpine (-js) and mongo:7 (mode 'containers');
 * 3. otherwise nats-server and FerretDB from .tools/bin (built by `npm run setup`) on free ports with
 *    data in a fresh temporary directory (mode 'local').
 * OASIS_TEST_INFRA=local or =containers skips the choice.
 */
export async function startTestInfra(options: TestInfraOptions = {}): Promise<TestInfra> {
  const services = { nats: options.nats ?? true, mongo: options.mongo ?? true };
  const env = process.env;
  const forced = env['OASIS_TEST_INFRA'];
  if (forced !== undefined && forced !== 'local' && forced !== 'containers') {
    throw new Error(`OASIS_TEST_INFRA must be "local" or "containers", got "${forced}"`);
  }

  const natsFromEnv = env['NATS_URL'];
  const mongoFromEnv = env['MONGO_URL'];
  if (!forced && (!services.nats || natsFromEnv) && (!services.mongo || mongoFromEnv)) {
    return {
      natsUrl: services.nats ? (natsFromEnv ?? '') : '',
      mongoUrl: services.mongo && mongoFromEnv ? mongoBaseUrl(mongoFromEnv) : '',
      mode: 'env',
      stop: async () => undefined,
    };
  }

  const useContainers = forced === 'containers' || (!forced && (await containerRuntimeAvailable()));
  const started = useContainers ? await startContainerInfra(services) : await startLocalInfra(services);
  return {
    natsUrl: started.natsUrl ?? '',
    mongoUrl: started.mongoUrl ?? '',
    mode: useContainers ? 'containers' : 'local',
    stop: started.stop,
  };
}

/** The connection string of one database on the test server, e.g. mongoUrlFor(infra, uniqueName('rooms')). */
export function mongoUrlFor(infra: TestInfra, dbName: string): string {
  if (!infra.mongoUrl) throw new Error('mongoUrlFor: this TestInfra was started without MongoDB');
  return mongoUrlWithDb(infra.mongoUrl, dbName);
}

/**
 * A service's settings for one test suite: the test servers, a database of its own (`name`, made
 * unique), test mode and TEST_LOG_LEVEL's logs (silent when unset), then `overrides`.
 */
export function serviceTestEnv(
  infra: TestInfra,
  name: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    NATS_URL: infra.natsUrl,
    MONGO_URL: mongoUrlFor(infra, uniqueName(name)),
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    NODE_ENV: 'test',
    ...overrides,
  };
}

/**
 * For Jest suites: starts the infrastructure in beforeAll, stops it in afterAll, and returns a
 * getter for use inside tests and later hooks.
 *
 * Call it at file level, outside `describe`: Jest runs the afterAll hooks of one block in the order
 * they were declared, so hooks inside a describe (closing connections, dropping databases) then run
 * before the servers stop.
 *
 *   const infra = useTestInfra();
 *   describe('rooms', () => {
 *     let nc: NatsConnection;
 *     beforeAll(async () => (nc = await connect({ servers: infra().natsUrl })));
 *     afterAll(() => nc.close());
 *     ...
 *   });
 */
export function useTestInfra(options?: TestInfraOptions & { startTimeoutMs?: number }): () => TestInfra {
  let infra: TestInfra | undefined;
  beforeAll(async () => {
    infra = await startTestInfra(options);
  }, options?.startTimeoutMs ?? 180_000);
  afterAll(async () => {
    await infra?.stop();
  });
  return () => {
    if (!infra)
      throw new Error('useTestInfra(): not started yet; call the getter inside a test or a later hook');
    return infra;
  };
}
