import { Inject, Injectable } from '@nestjs/common';
import { CONFIG } from '@oasis198/service-kit';
import { argon2id, hash, type HashOptions, verify } from 'argon2';
import type { AuthConfig } from '../config';

/** argon2id hashes (DECISIONS.md). The cost comes from the config; each hash carries its own parameters. */
@Injectable()
export class PasswordHasher {
  private readonly options: HashOptions;
  private dummy?: Promise<string>;

  constructor(@Inject(CONFIG) config: Pick<AuthConfig, 'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_PASSES'>) {
    this.options = {
      type: argon2id,
      memoryCost: config.PASSWORD_HASH_MEMORY_KIB,
      timeCost: config.PASSWORD_HASH_PASSES,
      parallelism: 1,
    };
  }

  hash(password: string): Promise<string> {
    return hash(password, this.options);
  }

  /** True when the password matches; a malformed hash counts as no match. */
  async verify(digest: string, password: string): Promise<boolean> {
    try {
      return await verify(digest, password);
    } catch {
      return false;
    }
  }

  /**
   * Spends the time of a real check when there is no account, so a login's answer time does not
   * tell whether an e-mail is registered.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= this.hash('no-such-account-0');
    await this.verify(await this.dummy, password);
    return false;
  }
}
