import { ConfigError, loadConfig } from '@oasis198/service-kit';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newSigningKeys, testSigningKeys } from '@oasis198/testing';
import { gatewayEnv, rpcTimeoutMs } from './config';

const load = (TRUST_PROXY?: string) =>
  loadConfig(gatewayEnv, {
    NATS_URL: 'nats://127.0.0.1:4222',
    JWT_PUBLIC_KEY: testSigningKeys().publicKey,
    ...(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }),
  });

describe('gateway configuration: TRUST_PROXY', () => {
  it('trusts the loopback proxy only by default (the local stack)', () => {
    expect(load().TRUST_PROXY).toEqual(['loopback']);
  });

  it('takes a hop count (the chart default: the ingress controller in front of the gateway)', () => {
    expect(load('1').TRUST_PROXY).toBe(1);
    expect(load(' 2 ').TRUST_PROXY).toBe(2);
  });

  it("takes the ingress controller's addresses and CIDRs", () => {
    expect(load('10.42.0.0/16, 192.0.2.7,fd00::/8 , loopback').TRUST_PROXY).toEqual([
      '10.42.0.0/16',
      '192.0.2.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it.each(['true', 'TRUE', '*', 'everyone', '10.0.0.0/33', '300.1.1.1', '', ' , '])(
    'refuses %p, naming TRUST_PROXY',
    (value) => {
      expect(() => load(value)).toThrow(ConfigError);
      expect(() => load(value)).toThrow(/TRUST_PROXY: must be a hop count/);
    },
  );
});

describe('gateway configuration: JWT_PUBLIC_KEY', () => {
  const withKey = (JWT_PUBLIC_KEY: string) =>
    loadConfig(gatewayEnv, { NATS_URL: 'nats://127.0.0.1:4222', JWT_PUBLIC_KEY });

  it("takes the public key of auth's ES256 key pair", () => {
    const { publicKey } = newSigningKeys();
    expect(withKey(publicKey).JWT_PUBLIC_KEY).toBe(publicKey);
  });

  it('refuses the private key, so that a gateway can never sign, and an HS256 secret', () => {
    expect(() => withKey(newSigningKeys().privateKey)).toThrow(/JWT_PUBLIC_KEY: is a private key/);
    expect(() => withKey('5f0c9a7e1d3b48f2a6c0e9d7b5a3f1e2c4d6b8a0f9e7c5a3')).toThrow(
      /JWT_PUBLIC_KEY: must be a PEM public key/,
    );
  });
});

describe('gateway configuration: RPC_TIMEOUT_MS', () => {
  const withEnv = (env: Record<string, string>) =>
    rpcTimeoutMs(
      loadConfig(gatewayEnv, {
        NATS_URL: 'nats://127.0.0.1:4222',
        JWT_PUBLIC_KEY: testSigningKeys().publicKey,
        ...env,
      }),
    );

  it('waits 5 s on one NATS server, and out a leader election on a cluster', () => {
    expect(withEnv({})).toBe(5000);
    expect(withEnv({ NATS_STREAM_REPLICAS: '3' })).toBe(12_000);
  });

  it('takes the value it is given either way', () => {
    expect(withEnv({ RPC_TIMEOUT_MS: '4000', NATS_STREAM_REPLICAS: '3' })).toBe(4000);
  });
});

describe('gateway configuration: secrets as files', () => {
  it('reads JWT_PUBLIC_KEY_FILE, as compose.yaml and the charts pass the key', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-config-'));
    const file = path.join(dir, 'jwt.pub');
    writeFileSync(file, testSigningKeys().publicKey);
    const config = loadConfig(gatewayEnv, { NATS_URL: 'nats://127.0.0.1:4222', JWT_PUBLIC_KEY_FILE: file });
    expect(config.JWT_PUBLIC_KEY.trim()).toBe(testSigningKeys().publicKey.trim());
  });
});
