import { isDuplicateKeyError } from './mongo';

describe('isDuplicateKeyError', () => {
  it('recognises the duplicate-key error by code or by its message', () => {
    expect(
      isDuplicateKeyError({ code: 11000, message: 'E11000 duplicate key error collection: db.users' }),
    ).toBe(true);
    expect(isDuplicateKeyError({ code: 11001 })).toBe(true);
    expect(isDuplicateKeyError(new Error('E11000 duplicate key error collection: db.rewards'))).toBe(true);
  });

  it('is false for other errors and non-errors', () => {
    for (const value of [new Error('connection refused'), { code: 112 }, null, undefined, 'E11000']) {
      expect(isDuplicateKeyError(value)).toBe(false);
    }
  });
});
