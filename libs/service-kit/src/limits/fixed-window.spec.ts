import { decodeWindow, encodeWindow, planRefund, planReserve, planReset } from './fixed-window';

const rule = { max: 3, windowMs: 1000 };

describe('fixed-window decisions', () => {
  it('opens a window with the first attempt and counts up to max within it', () => {
    expect(planReserve(null, rule, 5000)).toEqual({ allowed: true, next: { count: 1, endsAt: 6000 } });
    expect(planReserve({ count: 2, endsAt: 6000 }, rule, 5500)).toEqual({
      allowed: true,
      next: { count: 3, endsAt: 6000 },
    });
  });

  it('refuses at max until the window ends, saying how long is left', () => {
    expect(planReserve({ count: 3, endsAt: 6000 }, rule, 5250)).toEqual({
      allowed: false,
      count: 3,
      retryAfterMs: 750,
      endsAt: 6000,
    });
    // At its end the window is over: a new one opens.
    expect(planReserve({ count: 3, endsAt: 6000 }, rule, 6000)).toEqual({
      allowed: true,
      next: { count: 1, endsAt: 7000 },
    });
  });

  it('refunds an attempt only into the window it was counted in', () => {
    expect(planRefund({ count: 2, endsAt: 6000 }, 6000, 5500)).toEqual({ count: 1, endsAt: 6000 });
    expect(planRefund({ count: 2, endsAt: 7000 }, 6000, 6500)).toBeNull(); // a newer window
    expect(planRefund({ count: 2, endsAt: 6000 }, 6000, 6000)).toBeNull(); // over
    expect(planRefund({ count: 0, endsAt: 6000 }, 6000, 5500)).toBeNull(); // reset meanwhile
    expect(planRefund(null, 6000, 5500)).toBeNull();
  });

  it('resets a running window so the next attempt opens a new one', () => {
    const reset = planReset({ count: 3, endsAt: 6000 }, 5500);
    expect(reset).toEqual({ count: 0, endsAt: 0 });
    expect(planReserve(reset, rule, 5600)).toEqual({ allowed: true, next: { count: 1, endsAt: 6600 } });
    expect(planReset({ count: 3, endsAt: 6000 }, 6000)).toBeNull();
    expect(planReset(null, 6000)).toBeNull();
  });

  it('stores a window as small JSON and reads anything else as no window', () => {
    const state = { count: 4, endsAt: 1_700_000_000_000 };
    expect(decodeWindow(encodeWindow(state))).toEqual(state);
    expect(new TextDecoder().decode(encodeWindow(state))).toBe('{"c":4,"e":1700000000000}');
    for (const bad of ['', 'not json', '{"c":"1","e":2}', '{"c":1}', 'null']) {
      expect(decodeWindow(new TextEncoder().encode(bad))).toBeNull();
    }
    expect(decodeWindow(null)).toBeNull();
  });
});
