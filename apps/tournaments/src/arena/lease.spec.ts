import { RenewedLease } from './lease';

describe('RenewedLease', () => {
  it('writes only once half of its term has run, and believes nothing the last write did not give', async () => {
    const takes: number[] = [];
    let granted = true;
    const lease = new RenewedLease(1000, async (now) => {
      takes.push(now);
      return granted;
    });

    expect(await lease.hold(0)).toBe(true);
    expect(await lease.hold(200)).toBe(true);
    expect(await lease.hold(499)).toBe(true);
    expect(takes).toEqual([0]);
    expect(await lease.hold(500)).toBe(true);
    expect(takes).toEqual([0, 500]);
    expect(lease.heldAt(1499)).toBe(true);
    expect(lease.heldAt(1500)).toBe(false);

    granted = false;
    expect(await lease.hold(1000)).toBe(false);
    expect(lease.heldAt(1001)).toBe(false);
    expect(await lease.hold(1001)).toBe(false);
    expect(takes).toEqual([0, 500, 1000, 1001]);

    granted = true;
    expect(await lease.hold(2000)).toBe(true);
    lease.drop();
    expect(lease.heldAt(2001)).toBe(false);
    expect(await lease.hold(2001)).toBe(true);
    expect(takes).toEqual([0, 500, 1000, 1001, 2000, 2001]);
  });
});
