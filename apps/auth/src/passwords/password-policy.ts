import { Injectable } from '@nestjs/common';
import { AppError, USER_MESSAGES } from '@oasis198/contracts';
import { validatePassword } from '@oasis198/game-rules';
import COMMON_PASSWORDS from '../assets/common-passwords.json';

/**
 * The server's password rule: SPEC §5 (6-16 letters or digits, its message) and, per
 * DECISIONS.md, not one of the 10,000 most common passwords (whatever the case).
 */
@Injectable()
export class PasswordPolicy {
  private readonly common: ReadonlySet<string> = new Set(COMMON_PASSWORDS.map((p) => p.toLowerCase()));

  isCommon(password: string): boolean {
    return this.common.has(password.toLowerCase());
  }

  /** Throws VALIDATION with the SPEC message or the common-password message. */
  assertAcceptable(password: unknown): asserts password is string {
    const error = validatePassword(password);
    if (error) throw new AppError('VALIDATION', error, { password: error });
    if (this.isCommon(password as string)) {
      throw new AppError('VALIDATION', USER_MESSAGES.commonPassword, {
        password: USER_MESSAGES.commonPassword,
      });
    }
  }

  get size(): number {
    return this.common.size;
  }
}
