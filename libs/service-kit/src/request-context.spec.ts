import { currentRequestId, runWithRequestId, sanitizeRequestId } from './request-context';

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
});
