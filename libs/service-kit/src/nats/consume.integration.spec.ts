import { AppError, type EventEnvelope, type EventType } from '@oasis198/contracts';
import { uniqueName, useTestInfra, waitFor } from '@oasis198/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../logger';
import { runWithRequestId } from '../request-context';
import { type DeliveredEvent, JetStreamService } from './jetstream.service';

// Durable consumers against a real NATS server: one message at a time in stream order by default,
// or several at once when asked, each acked once.
const infra = useTestInfra({ mongo: false });

describe('JetStreamService.consume and consumeBatches', () => {
  const logger = createLogger('consume-it', 'silent');
  let js: JetStreamService;

  beforeEach(async () => {
    js = new JetStreamService({ servers: [infra().natsUrl], name: 'consume-it' }, logger);
    await js.connect();
  });

  afterEach(async () => {
    await js.close();
  });

  /** A stream with `count` events on it, and a consumer spec for them. */
  async function streamOf(count: number) {
    const name = uniqueName('consume');
    await js.ensureStreams([{ name, subjects: [`${name}.>`] }]);
    for (let i = 0; i < count; i++) {
      const event = {
        id: `${name}:${i}`,
        type: `${name}.happened` as EventType,
        occurredAt: '',
        data: { i },
      };
      await js.publish(event as unknown as EventEnvelope);
    }
    return { stream: name, durable: 'reader', filterSubjects: [`${name}.>`] };
  }

  /** Handles each event in 30 ms, noting the order and how many were in hand at once. */
  function slowHandler() {
    const seen: number[] = [];
    let inHand = 0;
    let most = 0;
    const handler = async (event: EventEnvelope) => {
      inHand++;
      most = Math.max(most, inHand);
      await sleep(30);
      seen.push((event.data as unknown as { i: number }).i);
      inHand--;
    };
    return { handler, seen, most: () => most };
  }

  const acked = async (spec: { stream: string; durable: string }) => {
    const info = await (await js.nc.jetstreamManager()).consumers.info(spec.stream, spec.durable);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };

  it('handles one message at a time, in stream order, by default', async () => {
    const spec = await streamOf(12);
    const { handler, seen, most } = slowHandler();
    await js.consume(spec, handler);
    await waitFor(async () => seen.length === 12 && (await acked(spec)), { what: 'every event handled' });
    expect(seen).toEqual([...Array(12).keys()]);
    expect(most()).toBe(1);
  });

  it('handles up to `concurrency` messages at once, each once, and acks them all', async () => {
    const spec = await streamOf(24);
    const { handler, seen, most } = slowHandler();
    await js.consume(spec, handler, { concurrency: 6 });
    await waitFor(async () => seen.length === 24 && (await acked(spec)), { what: 'every event handled' });
    expect([...seen].sort((a, b) => a - b)).toEqual([...Array(24).keys()]);
    expect(most()).toBe(6);
  });

  const numberOf = ({ event }: DeliveredEvent) => (event.data as unknown as { i: number }).i;

  it('takes what arrived while a batch was in hand as the next batch, at most `maxBatch`', async () => {
    const spec = await streamOf(40);
    const batches: number[][] = [];
    await js.consumeBatches(
      spec,
      async (batch) => {
        await sleep(30);
        batches.push(batch.map(numberOf));
      },
      { maxBatch: 8 },
    );
    await waitFor(async () => batches.flat().length === 40 && (await acked(spec)), {
      what: 'every event handled',
    });
    expect(batches.flat()).toEqual([...Array(40).keys()]);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(8);
    expect(batches.length).toBeLessThan(40);
  });

  it("gives each event of a batch its own message's request id", async () => {
    const spec = await streamOf(0);
    for (let i = 0; i < 6; i++) {
      const event = {
        id: `${spec.stream}:${i}`,
        type: `${spec.stream}.happened`,
        occurredAt: '',
        data: { i },
      };
      await runWithRequestId(`request-${i}`, () => js.publish(event as unknown as EventEnvelope));
    }
    const ids: string[] = [];
    await js.consumeBatches(
      spec,
      async (batch) => void ids.push(...batch.map(({ event }) => event.requestId)),
      {
        maxBatch: 6,
      },
    );
    await waitFor(async () => ids.length === 6 && (await acked(spec)), { what: 'every event handled' });
    expect(ids).toEqual([...Array(6).keys()].map((i) => `request-${i}`));
  });

  it('applies the events of a failed batch one at a time: the good ones are acked, a bad one alone is terminated', async () => {
    const spec = await streamOf(12);
    const applied: number[] = [];
    const sizes: number[] = [];
    await js.consumeBatches(
      spec,
      async (batch) => {
        sizes.push(batch.length);
        await sleep(20);
        if (batch.some((one) => numberOf(one) === 5)) throw new AppError('VALIDATION', 'event 5 is bad');
        applied.push(...batch.map(numberOf));
      },
      { maxBatch: 12 },
    );
    await waitFor(async () => applied.length === 11 && (await acked(spec)), { what: 'every event settled' });
    expect([...applied].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]);
    // A batch of several failed, and event 5 was tried alone before it was terminated.
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    const info = await (await js.nc.jetstreamManager()).consumers.info(spec.stream, spec.durable);
    expect(info.num_redelivered).toBe(0);
  });

  it('gives back the messages it holds when it stops, so another replica takes them at once', async () => {
    const spec = await streamOf(40);
    const first = slowHandler();
    await js.consume(spec, first.handler);
    await waitFor(async () => first.seen.length >= 3, { what: 'the first events handled' });
    // The rest are in this replica's hands (one pull takes up to 256); stopping must not keep
    // them until the 30 s ack wait runs out.
    await js.close();
    const handledFirst = first.seen.length;
    const other = new JetStreamService({ servers: [infra().natsUrl], name: 'consume-it-2' }, logger);
    await other.connect();
    try {
      const second = slowHandler();
      await other.consume(spec, second.handler);
      await waitFor(async () => handledFirst + second.seen.length >= 40, {
        what: 'the other replica handled the rest',
        timeoutMs: 10_000,
      });
      expect([...first.seen, ...second.seen].sort((a, b) => a - b)).toEqual([...Array(40).keys()]);
    } finally {
      await other.close();
    }
    js = new JetStreamService({ servers: [infra().natsUrl], name: 'consume-it' }, logger);
    await js.connect();
  });

  it('retries an event of a failed batch that fails alone, and applies it once it succeeds', async () => {
    const spec = await streamOf(6);
    const applied: number[] = [];
    let failuresLeft = 3;
    await js.consumeBatches(
      spec,
      async (batch) => {
        await sleep(20);
        if (batch.some((one) => numberOf(one) === 2) && failuresLeft-- > 0) throw new Error('database away');
        applied.push(...batch.map(numberOf));
      },
      { maxBatch: 6, backoffMs: [100] },
    );
    await waitFor(async () => applied.includes(2) && (await acked(spec)), { what: 'event 2 applied' });
    expect([...applied].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
