import { NatsError } from 'nats';
import { runWithRequestId } from '../request-context';
import { isTransientJetStreamError, JetStreamAttemptTimeout, withJetStreamRetry } from './jetstream-retry';

/** An error as nats.js makes it of a JetStream API answer (jsutil checkJsErrorCode). */
const apiError = (code: number, errCode: number, description: string) =>
  Object.assign(new NatsError(description, String(code)), {
    api_error: { code, err_code: errCode, description },
  });

describe('isTransientJetStreamError', () => {
  it.each([
    ['no responders (a stream without a leader)', new NatsError('503', '503')],
    ['a request timeout', new NatsError('TIMEOUT', 'TIMEOUT')],
    ['an attempt not answered in time', new JetStreamAttemptTimeout(1000)],
    [
      '10008 system temporarily unavailable',
      apiError(503, 10008, 'JetStream system temporarily unavailable'),
    ],
    [
      '10009 cluster can not handle request',
      apiError(500, 10009, 'JetStream cluster can not handle request'),
    ],
    ['10158 duplicate message id in process', apiError(409, 10158, 'duplicate message id is in process')],
    [
      '10163 expected last sequence per subject not ready',
      apiError(503, 10163, 'expected last sequence per subject temporarily unavailable'),
    ],
  ])('retries %s', (_, error) => {
    expect(isTransientJetStreamError(error)).toBe(true);
  });

  it.each([
    ['10071 wrong last sequence', apiError(400, 10071, 'wrong last sequence: 7')],
    ['10164 wrong last sequence (a cluster)', apiError(400, 10164, 'wrong last sequence')],
    ['10077 maximum bytes exceeded', apiError(503, 10077, 'maximum bytes exceeded')],
    ['10023 insufficient resources', apiError(503, 10023, 'insufficient resources')],
    [
      '10039 JetStream not enabled for the account',
      apiError(503, 10039, 'JetStream not enabled for account'),
    ],
    ['10005 no suitable peers', apiError(400, 10005, 'no suitable peers for placement')],
    ['10037 no message found', apiError(404, 10037, 'no message found')],
    ['10054 message too large', apiError(400, 10054, 'message size exceeds maximum allowed')],
    ['a closed connection', new NatsError('closed', 'CONNECTION_CLOSED')],
    ['a message over max_payload', new NatsError('too large', 'MAX_PAYLOAD_EXCEEDED')],
    ['any other error', new Error('boom')],
    ['nothing', undefined],
  ])('does not retry %s', (_, error) => {
    expect(isTransientJetStreamError(error)).toBe(false);
  });
});

describe('withJetStreamRetry', () => {
  /** A call that fails with `errors`, one per attempt, then answers 'ok'. */
  const failing = (...errors: unknown[]) => {
    const call = jest.fn(async () => {
      const error = errors[call.mock.calls.length - 1];
      if (error !== undefined) throw error;
      return 'ok';
    });
    return call;
  };

  it('tries again through no responders and a leaderless stream until the call answers', async () => {
    const call = failing(new NatsError('503', '503'), apiError(503, 10008, 'temporarily unavailable'));
    await expect(withJetStreamRetry(call, { budgetMs: 5000 })).resolves.toBe('ok');
    expect(call).toHaveBeenCalledTimes(3);
  });

  it('gives a lost race, a full stream or any other refusal back at once', async () => {
    for (const error of [
      apiError(400, 10071, 'wrong last sequence: 3'),
      apiError(503, 10077, 'maximum bytes exceeded'),
    ]) {
      const call = failing(error);
      await expect(withJetStreamRetry(call, { budgetMs: 5000 })).rejects.toBe(error);
      expect(call).toHaveBeenCalledTimes(1);
    }
  });

  it('sends the next attempt when one is not answered within the attempt timeout', async () => {
    let attempts = 0;
    const call = () => (++attempts === 1 ? new Promise<string>(() => undefined) : Promise.resolve('ok'));
    await expect(withJetStreamRetry(call, { budgetMs: 5000, attemptTimeoutMs: 50 })).resolves.toBe('ok');
    expect(attempts).toBe(2);
  });

  it('stops at the budget with the last error', async () => {
    const error = new NatsError('503', '503');
    const call = jest.fn(() => Promise.reject(error));
    const started = Date.now();
    await expect(withJetStreamRetry(call, { budgetMs: 400 })).rejects.toBe(error);
    process.stdout.write(`budget 400 ms: ${call.mock.calls.length} attempts in ${Date.now() - started} ms\n`);
    expect(call.mock.calls.length).toBeGreaterThan(1);
  });

  it('stops at the request deadline when it comes before the budget', async () => {
    const error = new NatsError('503', '503');
    const call = jest.fn(() => Promise.reject(error));
    await expect(
      runWithRequestId('r', () => withJetStreamRetry(call, { budgetMs: 60_000 }), Date.now() + 300),
    ).rejects.toBe(error);
    expect(call.mock.calls.length).toBeGreaterThan(1);
  });

  it('makes one plain attempt with a budget of 0, or past the deadline', async () => {
    const error = new NatsError('503', '503');
    const call = jest.fn(() => Promise.reject(error));
    await expect(withJetStreamRetry(call, { budgetMs: 0 })).rejects.toBe(error);
    await expect(
      runWithRequestId('r', () => withJetStreamRetry(call, { budgetMs: 5000 }), Date.now() - 1),
    ).rejects.toBe(error);
    expect(call).toHaveBeenCalledTimes(2);
  });
});
