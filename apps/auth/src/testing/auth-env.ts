import { mongoUrlFor, type TestInfra, testSigningKeys, uniqueName } from '@oasis198/testing';

/**
 * A suite's auth settings: the test servers, a database of its own (`name`), the test signing
 * key, and a cheap password hash (8 MiB), then `overrides`.
 */
export function authTestEnv(
  infra: TestInfra,
  name: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    NATS_URL: infra.natsUrl,
    MONGO_URL: mongoUrlFor(infra, uniqueName(name)),
    JWT_PRIVATE_KEY: testSigningKeys().privateKey,
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    NODE_ENV: 'test',
    PASSWORD_HASH_MEMORY_KIB: '8192',
    ...overrides,
  };
}
