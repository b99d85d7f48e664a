import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeConnectionsWhenShuttingDown } from './keep-alive';

describe('closeConnectionsWhenShuttingDown', () => {
  const lifecycle = { shuttingDown: false };
  let server: http.Server;
  let port = 0;
  let agent: http.Agent;
  let release: () => void = () => undefined;

  beforeEach(async () => {
    lifecycle.shuttingDown = false;
    const app = express();
    app.use(closeConnectionsWhenShuttingDown(lifecycle));
    app.get('/slow', (_req, res) => {
      release = () => res.json({ ok: true });
    });
    app.get('/fast', (_req, res) => res.json({ ok: true }));
    server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true });
  });

  afterEach(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}${path}`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res));
        })
        .on('error', reject);
    });

  it('keeps connections alive while the service runs', async () => {
    expect((await get('/fast')).headers.connection).toBe('keep-alive');
  });

  it('answers a request in flight when shutdown starts with Connection: close, so the client does not reuse the socket', async () => {
    const answer = get('/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    lifecycle.shuttingDown = true;
    server.close();
    release();
    expect((await answer).headers.connection).toBe('close');
    // The client opens no request on the closed socket: the next one finds no server (refused), not a cut answer.
    await expect(get('/fast')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
