import type { EventEnvelope } from '@oasis198/contracts';
import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import type { JetStreamService } from './nats/jetstream.service';
import { type OutboxDocument, OutboxRelay, outboxOf } from './outbox';

const event = (id: string): EventEnvelope =>
  ({
    id,
    type: 'room.updated',
    occurredAt: '2026-01-01T00:00:00.000Z',
    data: {},
  }) as unknown as EventEnvelope;

function relayWith(clearAfterMs: number) {
  const published: string[] = [];
  const updates: unknown[][] = [];
  const model = {
    updateOne: jest.fn(async (...args: unknown[]) => {
      updates.push(args);
      return { matchedCount: 1 };
    }),
    deleteOne: jest.fn(async () => ({ deletedCount: 1 })),
  } as unknown as Model<OutboxDocument>;
  const jetstream = {
    publish: jest.fn(async (e: EventEnvelope) => {
      published.push(e.id);
      return { duplicate: false };
    }),
  } as unknown as JetStreamService;
  const logger = { warn: jest.fn(), info: jest.fn() } as unknown as Logger;
  return { relay: new OutboxRelay(model, jetstream, logger, { clearAfterMs }), published, updates };
}

const doc = (ids: string[]): OutboxDocument => ({
  _id: 'r1',
  outbox: outboxOf(ids.map(event)),
  outboxAt: new Date('2026-01-01T00:00:00Z'),
});

describe('OutboxRelay', () => {
  afterEach(() => jest.useRealTimers());

  it('publishes, then removes the events from the document at once by default', async () => {
    const { relay, published, updates } = relayWith(0);
    await relay.publish(doc(['room.updated:r1:2']));
    expect(published).toEqual(['room.updated:r1:2']);
    expect(updates).toEqual([
      [
        { _id: 'r1', outboxAt: new Date('2026-01-01T00:00:00Z') },
        { $unset: { 'outbox.room_updated:r1:2': '' }, $set: { outboxAt: null } },
      ],
    ]);
    expect(relay.takePublished('r1')).toEqual([]);
  });

  it('with clearAfterMs, leaves the removal to the next update of the document when it comes first', async () => {
    jest.useFakeTimers();
    const { relay, published, updates } = relayWith(1500);
    await relay.publish(doc(['room.updated:r1:2']));
    expect(published).toEqual(['room.updated:r1:2']);
    expect(updates).toEqual([]);
    expect(relay.takePublished('r1')).toEqual(['room_updated:r1:2']);
    jest.advanceTimersByTime(5000);
    expect(updates).toEqual([]); // taken over: the relay does not write
  });

  it('with clearAfterMs, removes the events itself when no update comes', async () => {
    jest.useFakeTimers();
    const { relay, updates } = relayWith(1500);
    await relay.publish(doc(['room.updated:r1:2']));
    jest.advanceTimersByTime(1499);
    expect(updates).toEqual([]);
    jest.advanceTimersByTime(1);
    await Promise.resolve();
    expect(updates).toEqual([
      [
        { _id: 'r1', outboxAt: new Date('2026-01-01T00:00:00Z') },
        { $unset: { 'outbox.room_updated:r1:2': '' }, $set: { outboxAt: null } },
      ],
    ]);
  });

  it('removes events handed back by an update that did not happen, and everything pending on stop', async () => {
    jest.useFakeTimers();
    const { relay, updates } = relayWith(1500);
    await relay.publish(doc(['room.updated:r1:2']));
    const keys = relay.takePublished('r1');
    relay.clearLater('r1', keys);
    await relay.publish({ ...doc(['room.updated:r2:5']), _id: 'r2' });
    jest.useRealTimers();
    await relay.stop();
    expect(updates).toEqual(
      expect.arrayContaining([
        [{ _id: 'r1' }, { $unset: { 'outbox.room_updated:r1:2': '' } }],
        [
          { _id: 'r2', outboxAt: new Date('2026-01-01T00:00:00Z') },
          { $unset: { 'outbox.room_updated:r2:5': '' }, $set: { outboxAt: null } },
        ],
      ]),
    );
  });
});

describe('OutboxRelay sweep', () => {
  /** A JetStream answer refusing an event (e.g. the stream is full), as nats.js reports it. */
  const refusal = () =>
    Object.assign(new Error('maximum bytes exceeded'), {
      code: '503',
      api_error: { code: 503, err_code: 10077, description: 'maximum bytes exceeded' },
    });
  const timeout = () => Object.assign(new Error('TIMEOUT'), { code: 'TIMEOUT' });

  function sweepWith(docs: OutboxDocument[], fail: (e: EventEnvelope) => Error | undefined) {
    const published: string[] = [];
    const attempts: string[] = [];
    const written: unknown[][] = [];
    const write = jest.fn(async (...args: unknown[]) => {
      written.push(args);
      return { matchedCount: 1 };
    });
    const model = {
      find: () => ({ limit: () => ({ lean: async () => docs }) }),
      updateOne: write,
      deleteOne: jest.fn(async () => ({ deletedCount: 1 })),
      collection: { updateOne: write },
      db: { collection: () => ({ insertOne: write, countDocuments: async () => 0 }) },
    } as unknown as Model<OutboxDocument>;
    const jetstream = {
      publish: jest.fn(async (e: EventEnvelope) => {
        attempts.push(e.id);
        const error = fail(e);
        if (error) throw error;
        published.push(e.id);
        return { duplicate: false };
      }),
    } as unknown as JetStreamService;
    const logger = { warn: jest.fn(), info: jest.fn(), error: jest.fn() } as unknown as Logger;
    return {
      relay: new OutboxRelay(model, jetstream, logger, { service: 'rooms' }),
      published,
      attempts,
      written,
    };
  }
  const docOf = (id: string, events: string[]): OutboxDocument => ({
    _id: id,
    outbox: outboxOf(events.map(event)),
    outboxAt: new Date('2026-01-01T00:00:00Z'),
  });

  it('goes on with the other documents when the events of one are refused', async () => {
    const docs = [
      docOf('r1', ['room.updated:r1:2']),
      docOf('r2', ['room.updated:r2:7']),
      docOf('r3', ['room.updated:r3:1']),
    ];
    const { relay, published } = sweepWith(docs, (e) =>
      e.id === 'room.updated:r1:2' ? refusal() : undefined,
    );
    await relay.sweep();
    expect(published).toEqual(['room.updated:r2:7', 'room.updated:r3:1']);
  });

  it('counts each refusal of an event in its document, so a restart does not start counting again', async () => {
    const stored = docOf('r1', ['room.updated:r1:2']);
    const { relay, written } = sweepWith([stored], () => refusal());
    await relay.sweep();
    expect(written).toEqual([
      [
        { _id: 'r1', 'outbox.room_updated:r1:2': { $exists: true } },
        {
          $set: {
            'outboxFailures.room_updated:r1:2': expect.objectContaining({
              attempts: 1,
              error: 'maximum bytes exceeded',
            }),
          },
        },
      ],
    ]);
  });

  it('counts nothing while NATS cannot be reached, and stops the sweep (every document would wait the same)', async () => {
    const docs = [docOf('r1', ['room.updated:r1:2']), docOf('r2', ['room.updated:r2:7'])];
    const { relay, attempts, written } = sweepWith(docs, () => timeout());
    await relay.sweep();
    expect(attempts).toEqual(['room.updated:r1:2']);
    expect(written).toEqual([]);
  });
});
