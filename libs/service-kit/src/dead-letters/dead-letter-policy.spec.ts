import type { EventEnvelope } from '@oasis198/contracts';
import type { Logger } from 'pino';
import { DeadLetterPolicy } from './dead-letter-policy';

const refusal = { api_error: { err_code: 10077, description: 'maximum bytes exceeded' } };
const event = {
  id: 'e1',
  type: 'game.finished',
  occurredAt: '2026-01-01T00:00:00.000Z',
  data: {},
} as EventEnvelope;

function policy() {
  const inserted: unknown[] = [];
  const db = { collection: () => ({ insertOne: async (doc: never) => void inserted.push(doc) }) };
  const logger = { error: jest.fn() } as unknown as Logger;
  return {
    inserted,
    logger,
    policy: new DeadLetterPolicy(db, { attempts: 3, afterMs: 1000 }, { service: 'rooms', logger }),
  };
}

describe('the dead-letter policy', () => {
  it('counts only refusals by JetStream, not a timeout', () => {
    const { policy: p } = policy();
    expect(p.counts(refusal)).toBe(true);
    expect(p.counts({ code: 'TIMEOUT' })).toBe(false);
  });

  it('is due after enough refusals spread over long enough, not before', () => {
    const { policy: p } = policy();
    const t0 = new Date(0);
    let refusals = p.count(undefined, refusal, t0);
    refusals = p.count(refusals, refusal, new Date(500));
    refusals = p.count(refusals, refusal, new Date(900));
    expect(refusals).toMatchObject({ attempts: 3, firstAt: t0, error: 'maximum bytes exceeded' });
    expect(p.isDue(refusals)).toBe(false);
    expect(p.isDue(p.count(refusals, refusal, new Date(1000)))).toBe(true);
  });

  it('stores the event with its id as the record id, and logs how to replay it', async () => {
    const { policy: p, inserted, logger } = policy();
    const refusals = { attempts: 3, firstAt: new Date(0), lastAt: new Date(2000), error: 'full' };
    await p.bury(event, refusals, { collection: 'ROOMLOG', id: 'roomlog.r1#7' }, 'room');
    expect(inserted).toEqual([
      expect.objectContaining({ _id: 'e1', service: 'rooms', event: JSON.stringify(event), attempts: 3 }),
    ]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.anything(),
      expect.stringMatching(/replay-dead-letters/),
    );
  });
});
