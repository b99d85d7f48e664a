import { DataBuffer } from 'nats/lib/nats-base-client/databuffer';
import { ProtocolHandler } from 'nats/lib/nats-base-client/protocol';
import './coalesced-writes';

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
