// Network probes for the local infrastructure (Node builtins, and the MongoDB driver for its ping).
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readIfExists } from './workspace.ts';

export const HOST = '127.0.0.1';

/** How a server's port is chosen: see choosePort. */
export type PortsMode = 'fixed' | 'free' | 'fixed-or-free';

/**
 * A TCP port that nothing uses right now, picked below the kernel's ephemeral range. A port the OS
 * picks (listen on 0) comes from that range, which is also where outgoing connections take their
 * source ports: between this check and a service's own listen, a connection to NATS or FerretDB
 * could take it (EADDRINUSE at start-up, seen in CI with five services connecting at once).
 */
export async function freePort() {
  // The start of the kernel's range of source ports (Linux; a common default elsewhere).
  const range = readIfExists('/proc/sys/net/ipv4/ip_local_port_range');
  const [low, high] = [20_000, Math.min(Number(range?.split(/\s/)[0]) || 49_152, 32_768) - 1];
  for (let attempt = 0; attempt < 50 && high - low >= 1000; attempt++) {
    const port = await listenable(low + Math.floor(Math.random() * (high - low + 1)), '0.0.0.0');
    if (port) return port;
  }
  const port = await listenable(0, HOST);
  if (!port) throw new Error('no free port to listen on');
  return port;
}

/** Listens on `port` (0: the OS picks one) and closes again: resolves the port, or 0 if taken. */
function listenable(port: number, host: string) {
  return new Promise<number>((resolve) => {
    const server = net.createServer().unref();
    server.once('error', () => resolve(0));
    server.listen(port, host, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

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

/** Thrown by a waitFor probe to stop waiting at once (e.g. the awaited process has exited). */
export class GiveUp extends Error {}

/**
 * Polls `probe` until it returns a truthy value; throws naming `what` after `timeoutMs`. A probe
 * that throws counts as "not yet", unless it throws GiveUp, which ends the wait with that error.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 100, what = 'a condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError ? ` (last error: ${(lastError as Error).message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}
