import { generateKeyPairSync } from 'node:crypto';

export interface SigningKeys {
  /** PEM PKCS#8: auth's JWT_PRIVATE_KEY. */
  privateKey: string;
  /** PEM SPKI: the gateway's JWT_PUBLIC_KEY. */
  publicKey: string;
}

let keys: SigningKeys | undefined;

/**
 * An ES256 key pair for test stacks, made once per test process: tests sign tokens with it on
 * purpose (expired, forged claims), and no key of a test ever lives in the repository.
 */
export function testSigningKeys(): SigningKeys {
  keys ??= newSigningKeys();
  return keys;
}

/** A fresh ES256 (P-256) key pair as PEM. */
export function newSigningKeys(): SigningKeys {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
