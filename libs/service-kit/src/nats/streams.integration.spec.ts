import { AppError, type EventEnvelope, type EventType } from '@oasis198/contracts';
import { uniqueName, useTestInfra, waitFor } from '@oasis198/testing';
import { AckPolicy, DiscardPolicy, type JetStreamManager, nanos, RetentionPolicy } from 'nats';
import { createLogger } from '../logger';
import { Metrics } from '../metrics';
import { keepPublishedStream } from '../outbox';
import { ensureDurable, JetStreamService, STREAM_FULL_MESSAGE, type StreamSpec } from './jetstream.service';

// Bounded streams against a real NATS server: limits with discard NEW, brought up to date on an
// existing stream, a full stream refusing (never dropping) events, and the publisher's view of it.
const infra = useTestInfra({ mongo: false });

describe('JetStreamService: bounded streams', () => {
  const logger = createLogger('streams-it', 'silent');
  let metrics: Metrics;
  let js: JetStreamService;
  let jsm: JetStreamManager;

  beforeEach(async () => {
    metrics = new Metrics('streams-it');
    js = new JetStreamService({ servers: [infra().natsUrl], name: 'streams-it' }, logger, metrics);
    await js.connect();
    jsm = await js.nc.jetstreamManager();
  });

  afterEach(async () => {
    await js.close();
  });

  const spec = (extra: Partial<StreamSpec> = {}): StreamSpec => {
    const name = uniqueName('limits');
    return { name, subjects: [`${name}.>`], ...extra };
  };
  let n = 0;
  const eventOn = (stream: StreamSpec, bytes: number): EventEnvelope =>
    ({
      id: `${stream.name}:${++n}`,
      type: `${stream.name}.updated` as EventType,
      occurredAt: new Date().toISOString(),
      data: { padding: 'x'.repeat(bytes) },
    }) as unknown as EventEnvelope;
  /** Publishes events until the stream refuses one; returns how many it stored and the refusal. */
  async function fill(stream: StreamSpec, bytes: number) {
    for (let stored = 0; stored < 1000; stored++) {
      try {
        await js.publish(eventOn(stream, bytes));
      } catch (error) {
        return { stored, refusal: error };
      }
    }
    throw new Error('the stream never filled');
  }

  it('creates a stream with its limits and discard NEW', async () => {
    const stream = spec({ maxBytes: 64 * 1024, maxMsgSize: 4096 });
    await js.ensureStreams([stream]);
    const { config } = await jsm.streams.info(stream.name);
    expect(config).toMatchObject({
      subjects: stream.subjects,
      max_bytes: 64 * 1024,
      max_msg_size: 4096,
      discard: DiscardPolicy.New,
      max_age: nanos(14 * 24 * 60 * 60 * 1000),
    });
  });

  it("brings an existing stream's limits up to date without dropping a stored message", async () => {
    const stream = spec();
    // As an earlier version created it: no limits, discard old.
    await jsm.streams.add({
      name: stream.name,
      subjects: [...stream.subjects],
      duplicate_window: nanos(60_000),
    });
    for (let i = 0; i < 20; i++) await js.publish(eventOn(stream, 1000));
    const before = await jsm.streams.info(stream.name);

    // Consumers leave it alone; its publisher updates it, to less than it holds already.
    await js.ensureStreams([{ ...stream, maxBytes: 8 * 1024, maxMsgSize: 2048 }]);
    expect((await jsm.streams.info(stream.name)).config.max_bytes).toBe(-1);
    await js.ensureStreams([{ ...stream, maxBytes: 8 * 1024, maxMsgSize: 2048 }], { updateLimits: true });

    const after = await jsm.streams.info(stream.name);
    expect(after.config).toMatchObject({
      max_bytes: 8 * 1024,
      max_msg_size: 2048,
      discard: DiscardPolicy.New,
    });
    expect(after.state).toMatchObject({ messages: 20, first_seq: 1, bytes: before.state.bytes });
    await expect(js.publish(eventOn(stream, 100))).rejects.toMatchObject({ api_error: { err_code: 10077 } });
    await expect(js.publish(eventOn(stream, 100))).rejects.toMatchObject({
      api_error: { description: expect.stringMatching(/maximum bytes exceeded/) },
    });
  });

  it('an interest stream stores an event only for the consumers that take it, until each has acked it', async () => {
    const stream = spec({ retention: 'interest', maxBytes: 64 * 1024 });
    const reader = { stream: stream.name, durable: 'reader', filterSubjects: [`${stream.name}.updated`] };
    const other = { stream: stream.name, durable: 'other', filterSubjects: [`${stream.name}.>`] };
    // As its publisher starts: the stream, then its readers, before the first event.
    const publisher = {
      OUTBOX_DEAD_LETTER_ATTEMPTS: 1,
      OUTBOX_DEAD_LETTER_AFTER_MS: 0,
      STREAM_CHECK_MS: 60_000,
      STREAM_FULL_RATIO: 1,
    };
    await keepPublishedStream(js, stream, publisher, [reader, other]);
    expect((await jsm.streams.info(stream.name)).config.retention).toBe(RetentionPolicy.Interest);
    await js.publish(eventOn(stream, 100));
    await js.publish({ ...eventOn(stream, 100), type: `${stream.name}.ignored` as EventType });
    expect((await jsm.streams.info(stream.name)).state.messages).toBe(2);

    const ackAll = async (durable: string) => {
      const consumer = await js.nc.jetstream().consumers.get(stream.name, durable);
      const pending = (await consumer.info()).num_pending;
      for (let i = 0; i < pending; i++) (await consumer.next({ expires: 2000 }))?.ack();
      await js.nc.flush();
    };
    // The other consumer takes both; the reader only the first, which stays until it acks too.
    await ackAll('other');
    const stored = async (count: number) =>
      waitFor(async () => (await jsm.streams.info(stream.name)).state.messages === count, {
        what: `${count} stored messages`,
      });
    await stored(1);
    await ackAll('reader');
    await stored(0);

    // An event that no consumer takes is not stored at all.
    await jsm.consumers.delete(stream.name, 'other');
    await js.publish({ ...eventOn(stream, 100), type: `${stream.name}.ignored` as EventType });
    expect((await jsm.streams.info(stream.name)).state.messages).toBe(0);
  });

  it("brings an existing durable consumer's settings and subjects up to date on an upgrade", async () => {
    const stream = spec({ retention: 'interest' });
    await js.ensureStreams([stream]);
    // As an earlier release made it: one subject, in the single-subject field.
    const reader = { stream: stream.name, durable: 'reader', filterSubjects: [`${stream.name}.a`] };
    await jsm.consumers.add(stream.name, {
      durable_name: 'reader',
      ack_policy: AckPolicy.Explicit,
      filter_subject: `${stream.name}.a`,
      max_ack_pending: 1000,
      max_deliver: 5,
    });
    expect(await ensureDurable(jsm, { ...reader, maxAckPending: 1000, maxDeliver: 5 })).toBe(false);
    // The next release reads one more subject, holds more at once and never drops a message.
    const next = { ...reader, filterSubjects: [`${stream.name}.a`, `${stream.name}.b`] };
    expect(await ensureDurable(jsm, { ...next, maxAckPending: 20_000, maxDeliver: -1 })).toBe(false);
    const { config } = await jsm.consumers.info(stream.name, 'reader');
    expect(config).toMatchObject({ max_ack_pending: 20_000, max_deliver: -1 });
    expect([...(config.filter_subjects ?? [config.filter_subject])].sort()).toEqual(next.filterSubjects);
  });

  it("brings an existing durable consumer's ack wait up to date, whichever service made it", async () => {
    const stream = spec({ retention: 'interest' });
    await js.ensureStreams([stream]);
    const reader = { stream: stream.name, durable: 'reader', filterSubjects: [`${stream.name}.>`] };
    await js.ensureConsumer(reader);
    const ackWait = async () => (await jsm.consumers.info(stream.name, 'reader')).config.ack_wait;
    expect(await ackWait()).toBe(nanos(30_000));
    await js.ensureConsumer({ ...reader, ackWaitS: 10 });
    expect(await ackWait()).toBe(nanos(10_000));
    expect((await jsm.consumers.info(stream.name, 'reader')).config.filter_subjects).toEqual([
      `${stream.name}.>`,
    ]);
  });

  it('turns an existing limits stream into an interest stream in place, keeping what a consumer has not acked', async () => {
    const stream = spec({ maxBytes: 64 * 1024 });
    await js.ensureStreams([stream], { updateLimits: true });
    const reader = { stream: stream.name, durable: 'reader', filterSubjects: [`${stream.name}.>`] };
    await js.ensureConsumer(reader);
    for (let i = 0; i < 5; i++) await js.publish(eventOn(stream, 100));

    await js.ensureStreams([{ ...stream, retention: 'interest' }], { updateLimits: true });
    const { config, state } = await jsm.streams.info(stream.name);
    expect(config).toMatchObject({ retention: RetentionPolicy.Interest, max_bytes: 64 * 1024 });
    expect(state.messages).toBe(5);
  });

  it('a full stream refuses the next event and keeps every stored one; the publisher counts it full at once', async () => {
    const stream = spec({ maxBytes: 16 * 1024, maxMsgSize: 4096 });
    await js.ensureStreams([stream], { updateLimits: true });
    // Looked at once now; the next look would be a minute away: only the refusal can tell.
    await js.watchCapacity([stream], { everyMs: 60_000, fullRatio: 1 });
    expect(() => js.assertCanPublish(stream.name)).not.toThrow();

    const { stored, refusal } = await fill(stream, 1000);
    expect(refusal).toMatchObject({ api_error: { err_code: 10077 } });
    expect(stored).toBeGreaterThan(5);
    expect(() => js.assertCanPublish(stream.name)).toThrow(new AppError('UNAVAILABLE', STREAM_FULL_MESSAGE));
    const info = await jsm.streams.info(stream.name);
    expect(info.state).toMatchObject({ messages: stored, first_seq: 1, last_seq: stored });

    // Still full at the next look, as nothing made room.
    await js.refreshCapacity();
    expect(js.capacityOf(stream.name)).toMatchObject({ messages: stored, full: true });
    expect(await metrics.registry.getSingleMetricAsString('oasis_stream_full')).toContain(
      `oasis_stream_full{stream="${stream.name}",service="streams-it"} 1`,
    );

    // The operator raises the limit (the publisher's env, applied at its next start): room again.
    await js.ensureStreams([{ ...stream, maxBytes: 64 * 1024 }], { updateLimits: true });
    await js.refreshCapacity();
    expect(() => js.assertCanPublish(stream.name)).not.toThrow();
    await js.publish(eventOn(stream, 1000));
    expect((await jsm.streams.info(stream.name)).state).toMatchObject({ messages: stored + 1, first_seq: 1 });
  });

  it('counts a stream full from the configured share of max_bytes, and shows how full it is', async () => {
    const stream = spec({ maxBytes: 20 * 1024 });
    await js.ensureStreams([stream], { updateLimits: true });
    await js.watchCapacity([stream], { everyMs: 60_000, fullRatio: 0.5 });
    while ((js.capacityOf(stream.name)?.bytesRatio ?? 0) < 0.5) {
      expect(() => js.assertCanPublish(stream.name)).not.toThrow();
      await js.publish(eventOn(stream, 1000));
      await js.refreshCapacity();
    }
    expect(() => js.assertCanPublish(stream.name)).toThrow(STREAM_FULL_MESSAGE);
    const ratio = await metrics.registry.getSingleMetricAsString('oasis_stream_bytes_ratio');
    expect(ratio).toMatch(
      new RegExp(`oasis_stream_bytes_ratio\\{stream="${stream.name}",service="streams-it"\\} 0\\.5`),
    );
    expect(await metrics.registry.getSingleMetricAsString('oasis_stream_messages')).toContain(
      `oasis_stream_messages{stream="${stream.name}",service="streams-it"} ${js.capacityOf(stream.name)?.messages}`,
    );
  });
});
