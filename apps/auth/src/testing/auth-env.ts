import { serviceTestEnv, type TestInfra, testSigningKeys } from '@oasis198/testing';

/**
 * A suite's auth settings: serviceTestEnv's, the test signing key and a cheap password hash
 * (8 MiB), then `overrides`.
 */
export function authTestEnv(
  infra: TestInfra,
  name: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return serviceTestEnv(infra, name, {
    JWT_PRIVATE_KEY: testSigningKeys().privateKey,
    PASSWORD_HASH_MEMORY_KIB: '8192',
    ...overrides,
  });
}
