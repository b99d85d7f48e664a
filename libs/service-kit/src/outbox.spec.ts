import type { EventEnvelope } from '@oasis198/contracts';
import { outboxFields, outboxKey, outboxOf, pendingEvents } from './outbox';

const event = (id: string, occurredAt: string): EventEnvelope =>
  ({ id, type: 'room.updated', occurredAt, data: {} }) as unknown as EventEnvelope;

describe('outbox helpers', () => {
  it('makes field-safe keys from event ids', () => {
    expect(outboxKey('room.updated:abc:3')).toBe('room_updated:abc:3');
    expect(outboxKey('$x.y')).toBe('_x_y');
  });

  it('builds the $set fields that add events next to a change, each event as its JSON text', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(outboxFields([event('room.updated:r:2', now.toISOString())], now)).toEqual({
      outboxAt: now,
      'outbox.room_updated:r:2': JSON.stringify(event('room.updated:r:2', now.toISOString())),
    });
    expect(outboxOf([event('room.created:r', now.toISOString())])).toEqual({
      'room_created:r': JSON.stringify(event('room.created:r', now.toISOString())),
    });
  });

  it('reads events stored as JSON text and as sub-documents (written before)', () => {
    const t = '2026-01-01T00:00:00.000Z';
    const doc = {
      outbox: {
        a: JSON.stringify(event('room.updated:r:3', t)),
        b: event('room.updated:r:2', t),
        ...outboxOf([event('room.updated:r:4', t)]),
      },
    };
    expect(pendingEvents(doc)).toEqual([
      event('room.updated:r:2', t),
      event('room.updated:r:3', t),
      event('room.updated:r:4', t),
    ]);
  });

  it('returns pending events in the order they happened, versions numerically', () => {
    const t = '2026-01-01T00:00:00.000Z';
    const doc = {
      outbox: {
        b: event('room.updated:r:10', t),
        a: event('room.updated:r:9', t),
        c: event('room.created:r', '2025-12-31T23:59:59.000Z'),
      },
    };
    expect(pendingEvents(doc).map((e) => e.id)).toEqual([
      'room.created:r',
      'room.updated:r:9',
      'room.updated:r:10',
    ]);
    expect(pendingEvents({ outbox: null })).toEqual([]);
  });
});
