import fc from 'fast-check';
import { TIME_BASE_MS } from './constants';
import { addSpecSeconds, fromSpecSeconds, toSpecSeconds } from './time';

describe('SPEC time base', () => {
  it('counts seconds since 2022-11-17T00:00:00Z', () => {
    expect(TIME_BASE_MS).toBe(Date.parse('2022-11-17T00:00:00Z'));
    expect(toSpecSeconds(Date.parse('2022-11-17T00:00:00Z'))).toBe(0);
    expect(toSpecSeconds(Date.parse('2022-11-17T00:01:00Z'))).toBe(60);
    expect(toSpecSeconds(Date.parse('2022-11-18T00:00:00Z'))).toBe(86_400);
    expect(toSpecSeconds(Date.parse('2022-11-16T23:59:59Z'))).toBe(-1);
    expect(fromSpecSeconds(0)).toBe(Date.parse('2022-11-17T00:00:00Z'));
    expect(new Date(fromSpecSeconds(86_400)).toISOString()).toBe('2022-11-18T00:00:00.000Z');
  });

  it('keeps millisecond precision', () => {
    expect(toSpecSeconds(TIME_BASE_MS + 1_234)).toBe(1.234);
    expect(toSpecSeconds(TIME_BASE_MS + 1)).toBe(0.001);
    expect(fromSpecSeconds(1.234)).toBe(TIME_BASE_MS + 1_234);
  });

  it('rounds sub-millisecond input to the nearest millisecond', () => {
    expect(toSpecSeconds(TIME_BASE_MS + 1_234.4)).toBe(1.234);
    expect(toSpecSeconds(TIME_BASE_MS + 1_234.6)).toBe(1.235);
    expect(fromSpecSeconds(1.2344)).toBe(TIME_BASE_MS + 1_234);
  });

  it('round-trips every whole millisecond from 2022 to 2100', () => {
    fc.assert(
      fc.property(fc.integer({ min: TIME_BASE_MS - 1e10, max: Date.UTC(2100, 0, 1) }), (ms) => {
        expect(fromSpecSeconds(toSpecSeconds(ms))).toBe(ms);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips SPEC seconds with millisecond precision', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e10 }), (ms) => {
        const seconds = ms / 1000;
        expect(toSpecSeconds(fromSpecSeconds(seconds))).toBe(seconds);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('addSpecSeconds', () => {
  it('adds seconds and lands on the value a clock reading gives for the same instant', () => {
    // Plain addition is one ulp off here: 131051.067 + 36 === 131087.06699999998.
    expect(131051.067 + 36).not.toBe(131087.067);
    expect(addSpecSeconds(131051.067, 36)).toBe(131087.067);
    expect(addSpecSeconds(131051.067, 36)).toBe(toSpecSeconds(TIME_BASE_MS + 131_087_067));
  });

  it('equals the clock reading of the shifted instant for every millisecond time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3e12 }),
        fc.integer({ min: -100_000, max: 400_000 }),
        (ms, deltaMs) => {
          const at = toSpecSeconds(TIME_BASE_MS + ms);
          expect(addSpecSeconds(at, deltaMs / 1000)).toBe(toSpecSeconds(TIME_BASE_MS + ms + deltaMs));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
