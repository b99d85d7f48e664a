import { mongoUrlFor, startTestInfra, type TestInfra } from './infra';

describe('startTestInfra with NATS_URL and MONGO_URL set', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('uses the given servers, without the database name, and stop() does nothing', async () => {
    process.env['NATS_URL'] = 'nats://10.0.0.1:4222';
    process.env['MONGO_URL'] = 'mongodb://10.0.0.2:27017/oasis-auth';
    delete process.env['OASIS_TEST_INFRA'];
    const infra = await startTestInfra();
    expect(infra).toMatchObject({
      mode: 'env',
      natsUrl: 'nats://10.0.0.1:4222',
      mongoUrl: 'mongodb://10.0.0.2:27017',
    });
    await expect(infra.stop()).resolves.toBeUndefined();
    expect(mongoUrlFor(infra, 'rooms-1')).toBe('mongodb://10.0.0.2:27017/rooms-1');
  });

  it('needs only the variables of the servers requested', async () => {
    delete process.env['NATS_URL'];
    process.env['MONGO_URL'] = 'mongodb://10.0.0.2:27017';
    const infra = await startTestInfra({ nats: false });
    expect(infra).toMatchObject({ mode: 'env', natsUrl: '', mongoUrl: 'mongodb://10.0.0.2:27017' });
  });

  it('refuses an unknown OASIS_TEST_INFRA', async () => {
    process.env['OASIS_TEST_INFRA'] = 'cloud';
    await expect(startTestInfra()).rejects.toThrow(/OASIS_TEST_INFRA must be "local" or "containers"/);
  });
});

describe('mongoUrlFor', () => {
  it('refuses an infrastructure started without MongoDB', () => {
    const infra: TestInfra = {
      natsUrl: 'nats://h:1',
      mongoUrl: '',
      mode: 'env',
      stop: async () => undefined,
    };
    expect(() => mongoUrlFor(infra, 'x')).toThrow(/without MongoDB/);
  });
});
