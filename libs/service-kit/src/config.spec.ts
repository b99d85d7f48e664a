import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  baseEnv,
  ConfigError,
  loadConfig,
  mongoEnv,
  natsEndpoint,
  natsServers,
  refuseKnownSecrets,
  signingSecret,
} from './config';

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
      SHUTDOWN_GRACE_MS: 10_000,
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

  describe('secrets as files (<NAME>_FILE)', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-config-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("reads a variable from the file <NAME>_FILE names, without the file's last newline", () => {
      const file = path.join(dir, 'mongo-url');
      writeFileSync(file, 'mongodb://db:27017/oasis-rooms\n');
      const config = loadConfig(schema, { NATS_URL: 'nats://127.0.0.1:4222', MONGO_URL_FILE: file });
      expect(config.MONGO_URL).toBe('mongodb://db:27017/oasis-rooms');
    });

    it("leaves other programs' *_FILE variables alone", () => {
      const config = loadConfig(schema, {
        NATS_URL: 'nats://127.0.0.1:4222',
        MONGO_URL: 'mongodb://db:27017/x',
        TF_CLI_CONFIG_FILE: path.join(dir, 'missing'),
      });
      expect(config.MONGO_URL).toBe('mongodb://db:27017/x');
    });

    it('refuses a file that cannot be read, and both forms at once, naming the variable', () => {
      expect(() =>
        loadConfig(schema, { NATS_URL: 'nats://127.0.0.1:4222', MONGO_URL_FILE: path.join(dir, 'missing') }),
      ).toThrow(/MONGO_URL_FILE: cannot read .*missing \(ENOENT\)/);
      const file = path.join(dir, 'both');
      writeFileSync(file, 'mongodb://db:27017/x');
      expect(() =>
        loadConfig(schema, {
          NATS_URL: 'nats://127.0.0.1:4222',
          MONGO_URL: 'mongodb://db:27017/x',
          MONGO_URL_FILE: file,
        }),
      ).toThrow(/MONGO_URL_FILE: set either MONGO_URL or MONGO_URL_FILE, not both/);
    });
  });
});

describe('natsServers', () => {
  it('splits a comma-separated list', () => {
    expect(natsServers('nats://a:4222, nats://b:4222')).toEqual(['nats://a:4222', 'nats://b:4222']);
  });
});

describe('signing secrets (signingSecret with refuseKnownSecrets)', () => {
  const secretSchema = baseEnv
    .extend({ JWT_SECRET: signingSecret() })
    .superRefine(refuseKnownSecrets('JWT_SECRET'));
  const env = (JWT_SECRET: string, NODE_ENV = 'production') => ({
    NATS_URL: 'nats://127.0.0.1:4222',
    NODE_ENV,
    JWT_SECRET,
  });
  const problem = (JWT_SECRET: string, NODE_ENV = 'production'): string => {
    try {
      loadConfig(secretSchema, env(JWT_SECRET, NODE_ENV));
      return '';
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
  };

  it.each([
    // Committed in this repository: the dev overlay, the charts' ci values, the tests.
    ['the old dev overlay key', 'dev-only-not-secret-0123456789abcdef0123456789'],
    ['the charts ci key', 'ci-only-0123456789abcdef0123456789abcdef'],
    ['the gateway test key', 'integration-test-secret-0123456789abcdef'],
    ['the auth test key', 'auth-integration-secret-0123456789abcdef'],
    ['the unit test key', 'unit-test-secret-0123456789abcdef0123'],
    ['a placeholder word', 'please-changeme-before-going-live-2024'],
    ['"secret" in any case', 'MySuperSecretSigningKeyForTheGame12'],
    ['one character repeated', 'a'.repeat(48)],
    ['a short pattern repeated', 'k3Yx'.repeat(10)],
    ['a counting sequence', 'Zq0123456789abcdefghijklmnopqrstuv'],
    ['too few distinct characters', '1212343412123434121234341212343412'],
  ])('refuses %s in production, naming JWT_SECRET and not the value', (_what, secret) => {
    const message = problem(secret);
    expect(message).toContain('JWT_SECRET');
    expect(message).toMatch(/known|placeholder/);
    expect(message).not.toContain(secret);
    // Development and test runs may use them.
    expect(problem(secret, 'development')).toBe('');
    expect(problem(secret, 'test')).toBe('');
  });

  it('accepts random secrets in production', () => {
    for (const secret of [
      'f3b9c2d4e8a17b6c5d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c',
      'mQ7vXk2pR9sT4wYz8bN3cH6jL1dF5gA0eU_-iOqW',
    ]) {
      expect(loadConfig(secretSchema, env(secret)).JWT_SECRET).toBe(secret);
    }
  });

  it('keeps the minimum length everywhere, production or not', () => {
    for (const mode of ['production', 'development', 'test']) {
      expect(problem('x7Kq2', mode)).toMatch(/JWT_SECRET: must be at least 32 characters/);
    }
    expect(problem('', 'development')).toMatch(/JWT_SECRET/);
  });

  it('reports a missing secret by name', () => {
    expect(() => loadConfig(secretSchema, { NATS_URL: 'nats://127.0.0.1:4222' })).toThrow(
      /JWT_SECRET: is required/,
    );
  });
});

describe('NATS credentials', () => {
  const base = { NATS_URL: 'nats://a:4222,nats://b:4222' };

  it('connects without credentials when none are set (the local stack)', () => {
    const config = loadConfig(baseEnv, base);
    expect(natsEndpoint(config)).toEqual({ servers: ['nats://a:4222', 'nats://b:4222'] });
  });

  it('connects as NATS_USER with NATS_PASSWORD, receiving replies under its own inbox prefix', () => {
    const config = loadConfig(baseEnv, { ...base, NATS_USER: 'rooms', NATS_PASSWORD: 'p4ssw0rdFromASecret' });
    expect(natsEndpoint(config)).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'rooms',
      pass: 'p4ssw0rdFromASecret',
      inboxPrefix: '_INBOX.rooms',
    });
  });

  it.each([
    [{ NATS_USER: 'rooms' }, /NATS_PASSWORD: is required when NATS_USER is set/],
    [{ NATS_PASSWORD: 'x9Lk2' }, /NATS_USER: is required when NATS_PASSWORD is set/],
    [{ NATS_USER: 'rooms.x', NATS_PASSWORD: 'x9Lk2' }, /NATS_USER: must be a plain name/],
  ])('refuses incomplete or unusable credentials %p', (vars, message) => {
    expect(() => loadConfig(baseEnv, { ...base, ...vars })).toThrow(message);
  });

  it('refuses a known NATS password in production only', () => {
    const vars = { ...base, NATS_USER: 'rooms', NATS_PASSWORD: 'ci-only-nats-rooms-0123456789abcdef' };
    expect(() => loadConfig(baseEnv, { ...vars, NODE_ENV: 'production' })).toThrow(/NATS_PASSWORD: .*known/);
    expect(loadConfig(baseEnv, { ...vars, NODE_ENV: 'test' }).NATS_USER).toBe('rooms');
  });
});
