import { ConfigError, loadConfig } from '@oasis198/service-kit';
import { newSigningKeys } from '@oasis198/testing';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { authEnv } from './config';

const env = (JWT_PRIVATE_KEY: string, NODE_ENV = 'production') => ({
  NODE_ENV,
  NATS_URL: 'nats://127.0.0.1:4222',
  MONGO_URL: 'mongodb://127.0.0.1:27017/oasis-auth',
  JWT_PRIVATE_KEY,
});

describe('auth configuration', () => {
  it('signs with an ES256 private key, as PEM', () => {
    const { privateKey } = newSigningKeys();
    expect(loadConfig(authEnv, env(privateKey)).JWT_PRIVATE_KEY).toBe(privateKey);
  });

  it('refuses a missing key, a public key, a key of another curve and an HS256 secret, naming JWT_PRIVATE_KEY', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const key of [
      newSigningKeys().publicKey,
      p384,
      '5f0c9a7e1d3b48f2a6c0e9d7b5a3f1e2c4d6b8a0f9e7c5a3',
    ]) {
      const load = () => loadConfig(authEnv, env(key));
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/JWT_PRIVATE_KEY: must be/);
    }
    expect(() => loadConfig(authEnv, { ...env(''), JWT_PRIVATE_KEY: undefined })).toThrow(
      /JWT_PRIVATE_KEY: is required/,
    );
  });

  it("refuses, in production, the key pair the charts' CI values publish", () => {
    const published = readFileSync(
      path.resolve(__dirname, '../../../helm/oasis198/ci/in-cluster-deps.yaml'),
      'utf8',
    );
    const pem = /(-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----)/.exec(published)?.[1] ?? '';
    const key = pem.replace(/^\s+/gm, '') + '\n';
    expect(() => loadConfig(authEnv, env(key))).toThrow(/JWT_PRIVATE_KEY: is a published key/);
    expect(loadConfig(authEnv, env(key, 'test')).JWT_PRIVATE_KEY).toBe(key);
  });
});
