import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, WorkLine } from '@oasis198/service-kit';
import { argon2id, hash, type HashOptions, verify } from 'argon2';
import type { AuthConfig } from '../config';

type HasherConfig = Pick<
  AuthConfig,
  'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_PASSES' | 'PASSWORD_HASH_CONCURRENCY'
>;

/**
 * argon2id hashes (DECISIONS.md). The cost comes from the config; each hash carries its own
 * parameters. The work around a password (a login's lookup and check, a registration's or a
 * change's hash) runs `inTurn`, in a WorkLine of PASSWORD_HASH_CONCURRENCY: a storm of logins
 * leaves no backlog in front of the logins after it, and one account holds one place at a time.
 */
@Injectable()
export class PasswordHasher {
  private readonly options: HashOptions;
  private readonly line: WorkLine;
  private dummy?: Promise<string>;

  constructor(@Inject(CONFIG) config: HasherConfig) {
    this.options = {
      type: argon2id,
      memoryCost: config.PASSWORD_HASH_MEMORY_KIB,
      timeCost: config.PASSWORD_HASH_PASSES,
      parallelism: 1,
    };
    this.line = new WorkLine(config.PASSWORD_HASH_CONCURRENCY);
  }

  /**
   * Runs work when its turn comes, unless the request's caller has stopped waiting by then. The
   * pieces of one `account` wait for each other, so a loop on one account cannot fill the line.
   */
  inTurn<T>(work: () => Promise<T>, account?: string): Promise<T> {
    return this.line.run(work, account);
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
