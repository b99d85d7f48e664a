// Network probes for the local infrastructure (Node builtins, and the MongoDB driver for its ping).
// freePort and waitFor are the tests' own (libs/testing), so tools and tests poll alike.
import {
  freePort,
  GiveUp,
  listenable,
  waitFor as sharedWaitFor,
} from '../../../libs/testing/src/node-only/net.ts';

export { freePort, GiveUp };

export const HOST = '127.0.0.1';

/** How a server's port is chosen: see choosePort. */
export type PortsMode = 'fixed' | 'free' | 'fixed-or-free';

/**
 * The port `what` listens on: in mode 'free' (or when `wanted` is 0) one nothing uses; else
 * `wanted` if it is free; if not, 'fixed' fails (`hint` says what to do) and 'fixed-or-free' takes a
 * free one, with a line in `notes` saying so.
 */
export async function choosePort(
  wanted: number,
  mode: PortsMode,
  { what, notes, hint = '' }: { what: string; notes: string[]; hint?: string },
): Promise<number> {
  if (mode === 'free' || wanted === 0) return freePort();
  if (await listenable(wanted, HOST)) return wanted;
  if (mode === 'fixed') throw new Error(`port ${wanted} (${what}) is taken by another process${hint}`);
  const port = await freePort();
  notes.push(`port ${wanted} is taken, so ${what} uses ${port} instead`);
  return port;
}

/** GET http://127.0.0.1:port/path; resolves { status, body } or undefined when unreachable. */
export async function httpGet(port: number, urlPath: string, { timeoutMs = 2000 } = {}) {
  return fetch(`http://${HOST}:${port}${urlPath}`, { signal: AbortSignal.timeout(timeoutMs) })
    .then(async (response) => ({ status: response.status, body: await response.text() }))
    .catch(() => undefined);
}

/** NATS is up with JetStream: its health check answers 200 only once it accepts clients. */
export async function natsHealthy({ monitorPort }: { monitorPort: number }) {
  return (await httpGet(monitorPort, '/healthz?js-enabled-only=true'))?.status === 200;
}

/**
 * Asks the MongoDB-compatible server `{ ping: 1 }` with the driver and resolves true when it
 * answers ok: a listening port is not enough, the server must really answer commands.
 */
export async function mongoPing(port: number, { timeoutMs = 2000 } = {}) {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(`mongodb://${HOST}:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
  });
  try {
    return (await client.db('admin').command({ ping: 1 }))?.ok === 1;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The shared waitFor, with the longer patience a starting server needs. */
export const waitFor: typeof sharedWaitFor = (probe, options) =>
  sharedWaitFor(probe, { timeoutMs: 15_000, ...options });
