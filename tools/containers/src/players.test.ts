// Tests of the bots' registration (node --test, run by `nx run containers:test`), against a small
// HTTP server that answers as the gateway's /api/users does.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { enlist, GatewayClient } from './players.ts';

it('enlists a player whose registration timed out here yet was done there', async () => {
  const accounts = new Map<string, { _id: string; name: string; token: string }>();
  let registrations = 0;
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req.setEncoding('utf8')) text += chunk;
    const { name, email } = JSON.parse(text) as { name: string; email: string };
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const account = accounts.get(email);
    if (req.url === '/api/users/login') {
      if (account) answer(200, account);
      else answer(401, { message: 'wrong e-mail or password' });
    } else if (account) answer(409, { message: 'taken' });
    else {
      accounts.set(email, { _id: `id-${name}`, name, token: `token-${name}` });
      // The first registration is done at once but answered after the client has given up.
      if (++registrations === 1) await new Promise((resolve) => setTimeout(resolve, 500));
      answer(201, accounts.get(email));
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new GatewayClient(`http://127.0.0.1:${port}`, { timeoutMs: 200 });
    const retries: string[] = [];
    const players = await enlist(client, ['late'], { onError: (kind) => retries.push(kind) });
    assert.deepEqual(
      players.map(({ id, name, token }) => ({ id, name, token })),
      [{ id: 'id-late', name: 'late', token: 'token-late' }],
    );
    assert.deepEqual(retries, ['timeout']);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
