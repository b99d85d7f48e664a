import { isDuplicateKeyError, onlyDuplicateKeys } from './mongo';

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

describe('onlyDuplicateKeys', () => {
  const duplicate = { code: 11000, errmsg: 'E11000 duplicate key error' };

  it('is true when every refused write of an unordered insert was a duplicate key', () => {
    expect(onlyDuplicateKeys({ code: 11000, writeErrors: [duplicate, duplicate] })).toBe(true);
    expect(onlyDuplicateKeys(duplicate)).toBe(true);
    // mongoose's copies of the driver's WriteErrors keep the code under `err` only.
    expect(
      onlyDuplicateKeys({
        writeErrors: [
          { err: duplicate, index: 0 },
          { err: duplicate, index: 2 },
        ],
      }),
    ).toBe(true);
  });

  it('is false when any write was refused for another reason', () => {
    expect(onlyDuplicateKeys({ code: 11000, writeErrors: [duplicate, { code: 121 }] })).toBe(false);
    expect(onlyDuplicateKeys({ writeErrors: [{ err: duplicate }, { err: { code: 121 } }] })).toBe(false);
    expect(onlyDuplicateKeys({ writeErrors: [] })).toBe(false);
    expect(onlyDuplicateKeys(new Error('connection refused'))).toBe(false);
  });
});
