import { encode } from 'nats/lib/nats-base-client/encoders';
import { ProtocolHandler } from 'nats/lib/nats-base-client/protocol';

/**
 * nats.js 2.29 writes what a connection has queued as soon as the current microtask queue is
 * done: a service that handles twenty messages from one read of its socket writes twenty times.
 * Here the write waits for the end of the event loop's current phase (setImmediate), so the
 * messages produced while handling one batch of input leave in one socket write. A full buffer
 * (FLUSH_THRESHOLD) is still written at once, and a flush or close writes everything queued.
 */
interface Queue extends Pick<ProtocolHandler, 'outbound' | 'pendingLimit'> {
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

(ProtocolHandler.prototype as unknown as Queue).sendCommand = function (
  this: Queue,
  cmd: string | Uint8Array,
  ...payloads: Uint8Array[]
): void {
  const queued = this.outbound.length();
  this.outbound.fill(typeof cmd === 'string' ? encode(cmd) : cmd, ...payloads);
  if (queued === 0) setImmediate(() => this.flushPending());
  else if (this.outbound.size() >= this.pendingLimit) this.flushPending();
};
