// Network probes for the local infrastructure (Node builtins only).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export const HOST = '127.0.0.1';

/**
 * A TCP port that nothing uses right now, picked below the kernel's ephemeral range. A port the OS
 * picks (listen on 0) comes from that range, which is also where outgoing connections take their
 * source ports: between this check and a service's own listen, a connection to NATS or FerretDB
 * could take it (EADDRINUSE at start-up, seen in CI with five services connecting at once).
 */
export async function freePort() {
  const [ephemeralLow] = ephemeralRange();
  const low = 20_000;
  const high = Math.min(ephemeralLow, 32_768) - 1;
  if (high - low >= 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = low + Math.floor(Math.random() * (high - low + 1));
      if (await canListen(port, '0.0.0.0')) return port;
    }
  }
  return osPickedPort();
}

/** The kernel's range of source ports for outgoing connections (Linux; a common default elsewhere). */
function ephemeralRange() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    // not Linux
  }
  return [49_152, 65_535];
}

function osPickedPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canListen(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Whether something already listens on 127.0.0.1:port. */
export function isPortFree(port) {
  return canListen(port, HOST);
}

/** Connects, optionally waits for the first bytes (NATS greets with INFO), and closes. */
export function tcpProbe(port, { expectGreeting, timeoutMs = 1000 } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      if (!expectGreeting) done(true);
    });
    if (expectGreeting) {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk;
        if (received.length >= expectGreeting.length) done(received.startsWith(expectGreeting));
      });
    }
  });
}

/** GET http://127.0.0.1:port/path; resolves { status, body } or undefined when unreachable. */
export function httpGet(port, urlPath, { timeoutMs = 2000 } = {}) {
  return new Promise((resolve) => {
    const request = http.get({ host: HOST, port, path: urlPath, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
      response.on('error', () => resolve(undefined));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

/** NATS is up with JetStream: the client port greets and the monitor's health check is ok. */
export async function natsHealthy({ port, monitorPort }) {
  if (!(await tcpProbe(port, { expectGreeting: 'INFO ' }))) return false;
  const health = await httpGet(monitorPort, '/healthz?js-enabled-only=true');
  return health?.status === 200;
}

/**
 * Sends the MongoDB command `{ ping: 1, $db: "admin" }` as a raw OP_MSG and resolves true when the
 * reply says ok: 1. Enough wire protocol to know a server really answers, without a driver.
 */
export function mongoPing(port, { timeoutMs = 2000 } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    let received = Buffer.alloc(0);
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(opMsg({ ping: 1, $db: 'admin' })));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32LE(0)) return;
      try {
        // header (16 bytes), flagBits (4), section kind 0 (1), then the reply document
        done(received.readInt32LE(12) === 2013 && bsonOk(received.subarray(21)));
      } catch {
        done(false);
      }
    });
  });
}

/** An OP_MSG with one body section holding a flat document of int32 and string values. */
function opMsg(command) {
  const elements = [];
  for (const [key, value] of Object.entries(command)) {
    const name = Buffer.from(key + '\0', 'utf8');
    if (typeof value === 'number') {
      const int = Buffer.alloc(4);
      int.writeInt32LE(value);
      elements.push(Buffer.from([0x10]), name, int);
    } else {
      const str = Buffer.from(String(value) + '\0', 'utf8');
      const len = Buffer.alloc(4);
      len.writeInt32LE(str.length);
      elements.push(Buffer.from([0x02]), name, len, str);
    }
  }
  const body = Buffer.concat(elements);
  const doc = Buffer.alloc(4 + body.length + 1);
  doc.writeInt32LE(doc.length);
  body.copy(doc, 4);
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + doc.length, 0); // messageLength
  header.writeInt32LE(1, 4); // requestID
  header.writeInt32LE(0, 8); // responseTo
  header.writeInt32LE(2013, 12); // opCode OP_MSG
  header.writeUInt32LE(0, 16); // flagBits
  header.writeUInt8(0, 20); // section kind 0: body
  return Buffer.concat([header, doc]);
}

/** Reads the top-level `ok` field of a BSON document (double, int32 or int64). */
function bsonOk(doc) {
  const end = doc.readInt32LE(0) - 1;
  let i = 4;
  while (i < end) {
    const type = doc[i++];
    const nameEnd = doc.indexOf(0, i);
    const name = doc.toString('utf8', i, nameEnd);
    i = nameEnd + 1;
    if (name === 'ok') {
      if (type === 0x01) return doc.readDoubleLE(i) === 1;
      if (type === 0x10) return doc.readInt32LE(i) === 1;
      if (type === 0x12) return doc.readBigInt64LE(i) === 1n;
      return false;
    }
    i += bsonValueSize(doc, type, i);
  }
  return false;
}

function bsonValueSize(doc, type, i) {
  switch (type) {
    case 0x01: // double
    case 0x09: // UTC datetime
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
      return 4 + doc.readInt32LE(i);
    case 0x03: // document
    case 0x04: // array
      return doc.readInt32LE(i);
    case 0x05: // binary
      return 5 + doc.readInt32LE(i);
    case 0x07: // ObjectId
      return 12;
    case 0x08: // boolean
      return 1;
    case 0x0a: // null
      return 0;
    case 0x10: // int32
      return 4;
    case 0x13: // decimal128
      return 16;
    default:
      throw new Error(`unsupported BSON type ${type}`);
  }
}

/** Thrown by a waitFor probe to stop waiting at once (e.g. the awaited process has exited). */
export class GiveUp extends Error {}

/**
 * Polls `probe` until it returns a truthy value; throws naming `what` after `timeoutMs`. A probe
 * that throws counts as "not yet", unless it throws GiveUp, which ends the wait with that error.
 */
export async function waitFor(probe, { timeoutMs = 15_000, intervalMs = 100, what = 'a condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}
