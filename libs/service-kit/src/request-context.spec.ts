import {
  currentDeadline,
  currentRequestId,
  pastDeadline,
  runWithRequestId,
  sanitizeRequestId,
} from './request-context';

describe('request context', () => {
  it('carries a caller id through async work', async () => {
    const seen = await runWithRequestId('abc-123', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentRequestId();
    });
    expect(seen).toBe('abc-123');
    expect(currentRequestId()).toBeUndefined();
  });

  it('replaces an unsafe id with a fresh one', () => {
    const seen = runWithRequestId('bad id\nwith newline', () => currentRequestId());
    expect(seen).toMatch(/^[0-9a-f-]{36}$/);
    expect(sanitizeRequestId('x'.repeat(200))).toBeUndefined();
    expect(sanitizeRequestId(42)).toBeUndefined();
  });

  it("carries the caller's deadline through async work; a request without one never runs out", async () => {
    const deadline = Date.now() + 60_000;
    const seen = await runWithRequestId(
      'abc-123',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return currentDeadline();
      },
      deadline,
    );
    expect(seen).toBe(deadline);
    expect(pastDeadline(deadline)).toBe(false);
    expect(pastDeadline(Date.now() - 1)).toBe(true);
    expect(pastDeadline(undefined)).toBe(false);
    expect(runWithRequestId('abc-123', () => currentDeadline())).toBeUndefined();
  });
});
