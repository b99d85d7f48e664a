import { readablePage } from './paging';

describe('readablePage', () => {
  it('reads the asked page while its offset is a safe integer', () => {
    expect(readablePage(1, 8)).toEqual({ page: 1, beyond: false });
    expect(readablePage(1000, 8)).toEqual({ page: 1000, beyond: false });
  });

  it('reads the last page with a safe offset for a page further out, and marks it beyond', () => {
    for (const page of [3.6e307, 2 ** 60, Number.MAX_SAFE_INTEGER]) {
      const read = readablePage(page, 8);
      expect(read.beyond).toBe(true);
      expect(Number.isSafeInteger((read.page - 1) * 8)).toBe(true);
    }
  });
});
