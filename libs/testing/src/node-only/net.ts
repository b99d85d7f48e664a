// Ports and polling, shared by the tests (through @oasis198/testing) and the command-line tools,
// which Node runs as they are and import this file by path: Node builtins only, erasable syntax,
// and a package.json beside it that makes it an ES module for Node.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Ports this process has handed out: a stack asks for a dozen before its services listen on any,
 * and a random pick may repeat one given to a service that has not bound it yet.
 */
const handedOut = new Set<number>();
function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

/**
 * A TCP port that nothing uses right now, and that this process has not handed out before, picked
 * below the kernel's ephemeral range. A port the OS
 * picks (listen on 0) comes from that range, which is also where outgoing connections take their
 * source ports: between this check and a service's own listen, a connection to NATS or FerretDB
 * could take it (EADDRINUSE at start-up, seen in CI with five services connecting at once).
 */
export async function freePort(): Promise<number> {
  const [low, high] = [20_000, Math.min(ephemeralPortsStart(), 32_768) - 1];
  for (let attempt = 0; attempt < 50 && high - low >= 1000; attempt++) {
    const port = await listenable(low + Math.floor(Math.random() * (high - low + 1)), '0.0.0.0');
    if (port && !handedOut.has(port)) return handOut(port);
  }
  const port = await listenable(0, '127.0.0.1');
  if (!port) throw new Error('no free port to listen on');
  return handOut(port);
}

/** The start of the kernel's range of source ports (Linux; a common default elsewhere). */
function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s/)[0]) || 49_152;
  } catch {
    return 49_152;
  }
}

/** Listens on `port` (0: the OS picks one) and closes again: resolves the port, or 0 if taken. */
export function listenable(port: number, host: string): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = net.createServer().unref();
    server.once('error', () => resolve(0));
    server.listen(port, host, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout message (e.g. 'the room to be deleted'). */
  what?: string;
}

/** Thrown by a waitFor probe to stop waiting at once (e.g. the awaited process has exited). */
export class GiveUp extends Error {}

type Falsy = undefined | null | false | 0 | '';

/**
 * Polls `probe` until it returns a truthy value and returns that value. A probe that throws counts
 * as "not yet", unless it throws GiveUp, which ends the wait with that error; on timeout the error
 * names `what` and the probe's last error.
 */
export async function waitFor<T>(
  probe: () => T | Falsy | Promise<T | Falsy>,
  { timeoutMs = 10_000, intervalMs = 100, what = 'a condition' }: WaitForOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}
