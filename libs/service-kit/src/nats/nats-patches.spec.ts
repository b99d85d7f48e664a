import { ErrorCode, NatsError, type Msg } from 'nats';
import { DataBuffer } from 'nats/lib/nats-base-client/databuffer';
import type { MuxSubscription } from 'nats/lib/nats-base-client/muxsubscription';
import { ProtocolHandler } from 'nats/lib/nats-base-client/protocol';
import { RequestOne } from 'nats/lib/nats-base-client/request';

// nats.js as patches/nats+2.29.3.patch leaves it (applied by patch-package at install).

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

/** A connection's protocol handler with its queue, writing through a spy instead of a socket. */
function handler(pendingLimit = 32 * 1024) {
  const written: number[] = [];
  const protocol = Object.create(ProtocolHandler.prototype) as ProtocolHandler;
  Object.assign(protocol, {
    outbound: new DataBuffer(),
    pendingLimit,
    flushPending: () => written.push(protocol.outbound.drain().length),
  });
  return { protocol, written };
}

const nextPhase = () => new Promise((resolve) => setImmediate(resolve));
const pub = (subject: string) => `PUB ${subject} 0\r\n\r\n`;

describe('writes to NATS', () => {
  it('leave in one write for everything sent by the callbacks of one event-loop phase', async () => {
    const { protocol, written } = handler();
    setImmediate(() => protocol.sendCommand(pub('a')));
    setImmediate(() => protocol.sendCommand(pub('b'), new Uint8Array(3)));
    await nextPhase();
    await nextPhase();
    expect(written).toEqual([pub('a').length + pub('b').length + 3]);
  });

  it('write a full queue at once', () => {
    const { protocol, written } = handler(16);
    protocol.sendCommand(pub('first'));
    protocol.sendCommand(pub('second'));
    expect(written).toEqual([pub('first').length + pub('second').length]);
  });
});
