import { baseEnv, ConfigError, loadConfig, mongoEnv, natsServers } from './config';

const schema = baseEnv.merge(mongoEnv);

describe('loadConfig', () => {
  it('reads and coerces a valid environment with defaults', () => {
    const config = loadConfig(schema, {
      NATS_URL: 'nats://127.0.0.1:4222',
      MONGO_URL: 'mongodb://127.0.0.1:27017/oasis-auth',
      HTTP_PORT: '3101',
    });
    expect(config).toMatchObject({
      HTTP_PORT: 3101,
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      SHUTDOWN_GRACE_MS: 1500,
    });
  });

  it('names every missing or bad variable', () => {
    expect.assertions(4);
    try {
      loadConfig(schema, { NATS_URL: 'http://wrong', HTTP_PORT: '99999' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain('NATS_URL');
      expect(message).toContain('MONGO_URL');
      expect(message).toContain('HTTP_PORT');
    }
  });
});

describe('natsServers', () => {
  it('splits a comma-separated list', () => {
    expect(natsServers('nats://a:4222, nats://b:4222')).toEqual(['nats://a:4222', 'nats://b:4222']);
  });
});
