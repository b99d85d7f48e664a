import { ConfigError, loadConfig } from '@oasis198/service-kit';
import { authEnv } from './config';

const env = (JWT_SECRET: string, NODE_ENV = 'production') => ({
  NODE_ENV,
  NATS_URL: 'nats://127.0.0.1:4222',
  MONGO_URL: 'mongodb://127.0.0.1:27017/oasis-auth',
  JWT_SECRET,
});

describe('auth configuration', () => {
  it('refuses, in production, the signing key the dev overlay used to ship, naming JWT_SECRET', () => {
    const load = () => loadConfig(authEnv, env('dev-only-not-secret-0123456789abcdef0123456789'));
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/JWT_SECRET: .*known/);
  });

  it('refuses a placeholder key in production and still requires 32 characters everywhere', () => {
    expect(() => loadConfig(authEnv, env('changeme-changeme-changeme-changeme'))).toThrow(/JWT_SECRET/);
    expect(() => loadConfig(authEnv, env('short-key', 'development'))).toThrow(
      /JWT_SECRET: must be at least 32 characters/,
    );
  });

  it('starts in production with a random key, and in tests with a test key', () => {
    const random = '5f0c9a7e1d3b48f2a6c0e9d7b5a3f1e2c4d6b8a0f9e7c5a3';
    expect(loadConfig(authEnv, env(random)).JWT_SECRET).toBe(random);
    const testKey = 'auth-integration-secret-0123456789abcdef';
    expect(loadConfig(authEnv, env(testKey, 'test')).JWT_SECRET).toBe(testKey);
  });
});
