import { ErrorCode, NatsError, type Msg } from 'nats';
import type { MuxSubscription } from 'nats/lib/nats-base-client/muxsubscription';
import { RequestOne } from 'nats/lib/nats-base-client/request';
import './answered-requests';

const mux = { cancel: () => undefined } as unknown as MuxSubscription;
const request = () => new RequestOne(mux, 'subject', { timeout: 60_000 }, false);

describe('requests that end', () => {
  afterEach(() => jest.restoreAllMocks());

  it('build no error once answered', async () => {
    const errors = jest.spyOn(NatsError, 'errorForCode');
    const answered = request();
    answered.resolver(null, { data: new Uint8Array() } as Msg);
    await expect(answered.deferred).resolves.toBeDefined();
    expect(errors).not.toHaveBeenCalled();
  });

  it('still get an error of their own when cancelled unanswered', async () => {
    const [first, second] = [request(), request()];
    first.cancel();
    second.cancel();
    const [a, b] = await Promise.all([first.deferred.catch((e) => e), second.deferred.catch((e) => e)]);
    expect(a).toMatchObject({ code: ErrorCode.Cancelled });
    expect(b).toMatchObject({ code: ErrorCode.Cancelled });
    expect(a).not.toBe(b);
  });
});
