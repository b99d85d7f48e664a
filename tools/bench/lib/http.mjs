// HTTP for the bots (Node builtins only): JSON requests over a keep-alive agent, and Server-Sent
// Events streams, each on its own socket.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

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
  request(method, path, { token, body, headers = {}, timeoutMs = this.timeoutMs } = {}) {
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
            ...headers,
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
   * the performance.now() reading when the chunk that completed it arrived; onEnd(reason) is
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
          reject(
            Object.assign(new Error(`stream ${path} answered ${res.statusCode}`), {
              kind: 'http',
              status: res.statusCode,
            }),
          );
          res.resume();
          return;
        }
        resolve();
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk) => {
          const at = performance.now();
          buffer += chunk;
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            parseFrame(frame, at, onFrame);
          }
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

function parseFrame(frame, at, onFrame) {
  let id;
  let event = 'message';
  let data;
  for (const line of frame.split('\n')) {
    if (line.startsWith('data: ')) data = data === undefined ? line.slice(6) : `${data}\n${line.slice(6)}`;
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
  }
  if (data !== undefined) onFrame(id, event, data, at);
}
