import { setTimeout as sleep } from 'node:timers/promises';
import { CallerGaveUpError, runWithRequestId } from './request-context';
import { WorkLine } from './work-line';

describe('WorkLine', () => {
  it('runs at most its number of pieces at once, in turn', async () => {
    const line = new WorkLine(2);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        line.run(async () => {
          most = Math.max(most, ++running);
          await sleep(5);
          running--;
          done.push(i);
        }),
      ),
    );
    expect(most).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("does not start a piece whose caller's deadline has passed by its turn", async () => {
    const line = new WorkLine(1);
    const started: string[] = [];
    const slow = line.run(async () => {
      started.push('slow');
      await sleep(30);
    });
    const late = runWithRequestId('r1', () => line.run(async () => started.push('late')), Date.now() + 10);
    const patient = runWithRequestId(
      'r2',
      () => line.run(async () => started.push('patient')),
      Date.now() + 60_000,
    );
    const unbounded = line.run(async () => started.push('no deadline'));
    await slow;
    await expect(late).rejects.toBeInstanceOf(CallerGaveUpError);
    await Promise.all([patient, unbounded]);
    expect(started).toEqual(['slow', 'patient', 'no deadline']);
  });

  it('runs the pieces of one key one after another: another key passes its backlog', async () => {
    const line = new WorkLine(2);
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const piece = (name: string) => async () => {
      started.push(name);
      most = Math.max(most, ++running);
      await sleep(5);
      running--;
    };
    const flood = Array.from({ length: 6 }, (_, i) => line.run(piece(`a${i}`), 'a'));
    const other = line.run(piece('b'), 'b');
    await Promise.all([...flood, other]);
    // b went in beside a's first piece instead of behind all six; a's pieces ran one at a time.
    expect(started).toEqual(['a0', 'b', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(most).toBe(2);
  });

  it("goes on with a key's next piece when one fails or its caller gave up", async () => {
    const line = new WorkLine(1);
    const failing = line.run(() => Promise.reject(new Error('no')), 'a');
    const late = runWithRequestId('r1', () => line.run(async () => 'late', 'a'), Date.now() - 1);
    const next = line.run(async () => 'next', 'a');
    await expect(failing).rejects.toThrow('no');
    await expect(late).rejects.toBeInstanceOf(CallerGaveUpError);
    await expect(next).resolves.toBe('next');
  });
});
