import { USER_MESSAGES } from '@oasis198/contracts';
import { MESSAGES, validatePassword } from '@oasis198/game-rules';
import COMMON_PASSWORDS from '../assets/common-passwords.json';
import { PasswordPolicy } from './password-policy';

describe('PasswordPolicy', () => {
  const policy = new PasswordPolicy();

  it('ships 10,000 distinct lower-case entries that SPEC would otherwise accept', () => {
    expect(policy.size).toBe(10_000);
    expect(new Set(COMMON_PASSWORDS).size).toBe(COMMON_PASSWORDS.length);
    for (const password of COMMON_PASSWORDS) {
      expect(validatePassword(password)).toBeNull();
      expect(password).toBe(password.toLowerCase());
    }
  });

  it('refuses a common password whatever its case', () => {
    for (const password of ['123456', 'password', 'Password1', 'QWERTY123', 'iloveyou', 'dragon']) {
      expect(policy.isCommon(password)).toBe(true);
      expect(() => policy.assertAcceptable(password)).toThrow(USER_MESSAGES.commonPassword);
    }
  });

  it('accepts an uncommon password and refuses one that breaks SPEC with its message', () => {
    expect(() => policy.assertAcceptable('Zebra2Lamp7')).not.toThrow();
    for (const password of ['abc12', 'a'.repeat(17), 'pass word1', 'pässword1', undefined, { $gt: '' }]) {
      expect(() => policy.assertAcceptable(password)).toThrow(MESSAGES.password);
    }
  });
});
