import fc from 'fast-check';
import {
  bookkeep,
  freshOasis,
  hasUses,
  MOVE_OPTIONS,
  OASIS_OPTIONS,
  oasisTier,
  offeredOptions,
  OPTION_LABELS,
  optionEffect,
  usableOptions,
  type OasisCounts,
  type OasisOption,
} from './oasis';

const counts = (overrides: Partial<OasisCounts> = {}): OasisCounts => ({ ...freshOasis(), ...overrides });

describe('Support Oasis options', () => {
  it('are plain plus the five power-ups with SPEC labels', () => {
    expect([...OASIS_OPTIONS].sort()).toEqual(['added', 'bonus', 'double', 'extra', 'minus']);
    expect(MOVE_OPTIONS).toEqual(['plain', ...OASIS_OPTIONS]);
    expect(OPTION_LABELS).toMatchObject({
      double: 'Double',
      bonus: 'Add extra 1',
      added: 'Add extra 4',
      extra: 'Add extra 7',
      minus: 'Negative 2 X',
    });
  });

  it('start at 3 uses each and matched 0', () => {
    expect(freshOasis()).toEqual({ double: 3, extra: 3, minus: 3, added: 3, bonus: 3, matched: 0 });
    const a = freshOasis();
    a.double = 0;
    expect(freshOasis().double).toBe(3);
  });
});

describe('optionEffect', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])('gives the DECISIONS.md effect for a pick of %i', (n) => {
    expect(optionEffect('plain', n)).toBe(n);
    expect(optionEffect('double', n)).toBe(2 * n);
    expect(optionEffect('extra', n)).toBe(n + 7);
    expect(optionEffect('added', n)).toBe(n + 4);
    expect(optionEffect('bonus', n)).toBe(n + 1);
    expect(optionEffect('minus', n)).toBe(-2 * n);
  });
});

describe('oasisTier and offeredOptions', () => {
  const table: [number, 1 | 2 | 3 | null, OasisOption[]][] = [
    [0, 1, ['double', 'extra', 'bonus']],
    [1, 1, ['double', 'extra', 'bonus']],
    [72, 1, ['double', 'extra', 'bonus']],
    [73, 2, ['extra', 'added', 'bonus']],
    [100, 2, ['extra', 'added', 'bonus']],
    [160, 2, ['extra', 'added', 'bonus']],
    [161, 3, ['added', 'bonus', 'minus']],
    [197, 3, ['added', 'bonus', 'minus']],
    [198, null, []],
    [199, null, []],
    [250, null, []],
  ];

  it.each(table)('at a total of %i the tier is %p and the options are %p', (total, tier, options) => {
    expect(oasisTier(total)).toBe(tier);
    expect([...offeredOptions(total)].sort()).toEqual([...options].sort());
  });

  it('offers exactly three options below 198 and none from 198 on', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), (total) => {
        expect(offeredOptions(total)).toHaveLength(total < 198 ? 3 : 0);
      }),
    );
  });
});

describe('hasUses and usableOptions', () => {
  it('allow an option when its count plus matched is above 0', () => {
    expect(hasUses(counts(), 'double')).toBe(true);
    expect(hasUses(counts({ double: 1 }), 'double')).toBe(true);
    expect(hasUses(counts({ double: 0 }), 'double')).toBe(false);
    expect(hasUses(counts({ double: 0, matched: 1 }), 'double')).toBe(true);
    expect(hasUses(counts({ double: 0, extra: 0 }), 'extra')).toBe(false);
  });

  it('list the offered options with uses left', () => {
    expect(usableOptions(0, counts())).toEqual(['double', 'extra', 'bonus']);
    expect(usableOptions(0, counts({ double: 0 }))).toEqual(['extra', 'bonus']);
    expect(usableOptions(0, counts({ double: 0, matched: 2 }))).toEqual(['double', 'extra', 'bonus']);
    expect(usableOptions(100, counts({ added: 0, bonus: 0 }))).toEqual(['extra']);
    expect(usableOptions(170, counts({ minus: 0 }))).toEqual(['added', 'bonus']);
    expect(usableOptions(198, counts())).toEqual([]);
  });
});

describe('bookkeep', () => {
  it.each(MOVE_OPTIONS)('a matched %s move raises matched by 1 and costs nothing', (option) => {
    expect(bookkeep(counts({ matched: 2 }), option, true)).toEqual(counts({ matched: 3 }));
    expect(bookkeep(counts({ [option === 'plain' ? 'double' : option]: 0 }), option, true)).toEqual(
      counts({ [option === 'plain' ? 'double' : option]: 0, matched: 1 }),
    );
  });

  it.each(OASIS_OPTIONS)('an unmatched %s move costs 1 matched when there is any', (option) => {
    expect(bookkeep(counts({ matched: 2 }), option, false)).toEqual(counts({ matched: 1 }));
    expect(bookkeep(counts({ [option]: 0, matched: 1 }), option, false)).toEqual(counts({ [option]: 0 }));
  });

  it.each(OASIS_OPTIONS)('an unmatched %s move costs 1 use of it when matched is 0', (option) => {
    expect(bookkeep(counts(), option, false)).toEqual(counts({ [option]: 2 }));
    expect(bookkeep(counts({ [option]: 1 }), option, false)).toEqual(counts({ [option]: 0 }));
  });

  it('an unmatched plain move costs nothing', () => {
    expect(bookkeep(counts({ matched: 2 }), 'plain', false)).toEqual(counts({ matched: 2 }));
    expect(bookkeep(counts(), 'plain', false)).toEqual(counts());
  });

  it('never changes its input', () => {
    const input = Object.freeze(counts({ matched: 1 }));
    for (const option of MOVE_OPTIONS) {
      bookkeep(input, option, true);
      bookkeep(input, option, false);
    }
    expect(input).toEqual(counts({ matched: 1 }));
  });
});
