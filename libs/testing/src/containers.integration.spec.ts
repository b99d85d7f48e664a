import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers';
import { containerRuntimeAvailable, NATS_IMAGES, startWithFreshPorts } from './containers';

const RUN_LABEL = 'org.oasis198.test-run';

const leftOf = async (run: string) =>
  (await getContainerRuntimeClient()).container.fetchByLabel(RUN_LABEL, run, {
    status: ['created', 'running', 'exited'],
  });

const listen = () =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => resolve(server));
  });

// Containers mode (CI's integration stage): skipped only when asked for local servers.
const describeContainers = process.env['OASIS_TEST_INFRA'] === 'local' ? describe.skip : describe;

describeContainers('containers for the test infrastructure', () => {
  beforeAll(async () => {
    if (!(await containerRuntimeAvailable())) throw new Error('no container engine answers');
  });

  it('starts a container again on other ports when its host port was taken, and removes the one that failed', async () => {
    const taken = await listen();
    const takenPort = (taken.address() as net.AddressInfo).port;
    const run = randomUUID();
    let builds = 0;
    const started = await startWithFreshPorts(() => {
      builds += 1;
      const client = builds === 1 ? { container: 4222, host: takenPort } : 4222;
      return new GenericContainer(NATS_IMAGES[0] as string)
        .withLabels({ [RUN_LABEL]: run })
        .withExposedPorts(client, 8222)
        .withWaitStrategy(Wait.forLogMessage(/Server is ready/));
    }).finally(() => taken.close());
    try {
      expect(builds).toBe(2);
      expect(started.getMappedPort(4222)).not.toBe(takenPort);
      const left = await leftOf(run);
      expect(left?.id).toBe(started.getId());
    } finally {
      await started.stop({ remove: true, removeVolumes: true });
    }
  });

  it('does not try again when the start fails for another reason, and leaves nothing behind', async () => {
    const run = randomUUID();
    let builds = 0;
    await expect(
      startWithFreshPorts(() => {
        builds += 1;
        return new GenericContainer(NATS_IMAGES[0] as string)
          .withLabels({ [RUN_LABEL]: run })
          .withCommand(['--no-such-flag'])
          .withExposedPorts(4222, 8222)
          .withStartupTimeout(10_000)
          .withWaitStrategy(Wait.forLogMessage(/Server is ready/));
      }),
    ).rejects.toThrow();
    expect(builds).toBe(1);
    expect(await leftOf(run)).toBeUndefined();
  });
});
