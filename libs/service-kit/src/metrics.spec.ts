import { Histogram, Registry } from 'prom-client';
import { timed } from './metrics';

describe('timed', () => {
  const histogram = () =>
    new Histogram({ name: 'step_seconds', help: 'h', labelNames: ['step'], registers: [new Registry()] });
  const count = async (h: Histogram<'step'>, step: string) =>
    (await h.get()).values.find((v) => v.metricName === 'step_seconds_count' && v.labels['step'] === step)
      ?.value ?? 0;

  it('observes a step that resolves, and passes its value on', async () => {
    const h = histogram();
    await expect(timed(h, { step: 'read' }, async () => 42)).resolves.toBe(42);
    expect(await count(h, 'read')).toBe(1);
  });

  it('observes a step that throws, and passes its error on', async () => {
    const h = histogram();
    await expect(timed(h, { step: 'write' }, () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    );
    expect(await count(h, 'write')).toBe(1);
  });
});
