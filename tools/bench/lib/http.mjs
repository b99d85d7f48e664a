// HTTP for the bots (Node builtins only): JSON requests over a keep-alive agent, and Server-Sent
// Events streams, each on its own socket. Not fetch: on this machine it costs about three times the
// CPU per request (0.23-0.29 against 0.07-0.09 ms, measured), which at 900 moves/s the bots would
// take from the stack they measure.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

/**
 * A small JSON client for one gateway. Requests share `maxSockets` keep-alive sockets, so 2,000
 * bots do not open 2,000 more connections for their PATCHes; push streams use their own agent
 * (one socket each, never pooled).
 */
export class GatewayClient {
  constructor(baseUrl, { maxSockets = 128, timeoutMs = 10_000 } = {}) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.timeoutMs = timeoutMs;
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'lifo',
    });
    this.streamAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  }

  /**
   * Resolves { status, body, ms } (body: parsed JSON, or the text) for any HTTP answer; rejects
   * only for network failures and timeouts (error.kind = 'timeout' | 'network').
   */
  request(method, path, { token, body, timeoutMs = this.timeoutMs } = {}) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            clearTimeout(timer);
            let parsed = text;
            if (text && /json/.test(res.headers['content-type'] ?? '')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                // keep the text
              }
            }
            resolve({ status: res.statusCode, body: parsed, ms: performance.now() - started });
          });
          res.on('error', fail('network'));
        },
      );
      const timer = setTimeout(() => {
        req.destroy(
          Object.assign(new Error(`${method} ${path} timed out after ${timeoutMs} ms`), { kind: 'timeout' }),
        );
      }, timeoutMs);
      function fail(kind) {
        return (error) => {
          clearTimeout(timer);
          reject(Object.assign(error, { kind: error.kind ?? kind }));
        };
      }
      req.on('error', fail('network'));
      req.end(payload);
    });
  }

  /**
   * Opens a Server-Sent Events stream. onFrame(id, event, data, at) gets every frame, with `at`
   * the performance.now() reading when the line that completed it arrived; onEnd(reason) is
   * called once when the stream ends for any reason but close(). Returns { close, opened }.
   */
  stream(path, { token, onFrame, onEnd, openTimeoutMs = this.timeoutMs }) {
    let closed = false;
    let ended = false;
    const end = (reason) => {
      if (ended || closed) return;
      ended = true;
      onEnd(reason);
    };
    let res;
    const req = http.get({
      host: this.host,
      port: this.port,
      path,
      agent: this.streamAgent,
      headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    const opened = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          Object.assign(new Error(`stream ${path} did not open in ${openTimeoutMs} ms`), { kind: 'timeout' }),
        );
        req.destroy();
      }, openTimeoutMs);
      req.on('response', (response) => {
        clearTimeout(timer);
        res = response;
        if (res.statusCode !== 200) {
          reject(Object.assign(new Error(`stream ${path} answered ${res.statusCode}`), { kind: 'http' }));
          res.resume();
          return;
        }
        resolve();
        // A frame is its field lines ("id: ", "event: ", "data: ") up to a blank line.
        // readline re-emits a socket error on itself, uncaught without a listener; res's own
        // 'error' handler below ends the stream.
        const lines = createInterface({ input: res, crlfDelay: Infinity }).on('error', () => undefined);
        let frame = { event: 'message' };
        lines.on('line', (line) => {
          if (line === '') {
            if (frame.data !== undefined) onFrame(frame.id, frame.event, frame.data, performance.now());
            frame = { event: 'message' };
          } else if (line.startsWith('data: ')) {
            frame.data = frame.data === undefined ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
          } else if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('event: ')) frame.event = line.slice(7);
        });
        res.on('end', () => end('ended by the server'));
        res.on('error', (error) => end(error.message));
        res.on('close', () => end('connection closed'));
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(Object.assign(error, { kind: 'network' }));
        end(error.message);
      });
    });
    opened.catch(() => undefined);
    return {
      opened,
      close() {
        closed = true;
        req.destroy();
        res?.destroy();
      },
    };
  }

  close() {
    this.agent.destroy();
    this.streamAgent.destroy();
  }
}
