import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SseClient, type SseEvent } from './sse-client';

/** A server that writes `chunks` to each stream with a pause between them, then ends it. */
async function serve(chunks: string[], status = 200) {
  const server = http.createServer(async (_req, res) => {
    res.writeHead(status, { 'content-type': status === 200 ? 'text/event-stream' : 'application/json' });
    for (const chunk of chunks) {
      res.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describe('SseClient', () => {
  it('reads events split anywhere across chunks, multi-line data and CRLF, and counts comments', async () => {
    const { url, server } = await serve([
      ': hello\n\nid: 1\nev',
      'ent: room\ndata: {"a":',
      '1}\n\ndata: one\r\ndata: two\r\n\r\n: ping\n\nid: 3\nevent: room-deleted\ndata: {}\n',
      '\n',
    ]);
    const seen: SseEvent[] = [];
    const client = await SseClient.open(url, {}, { onEvent: (event) => seen.push(event) });
    expect(await client.ended()).toBe(true);
    server.close();
    expect(client.events).toEqual([
      { event: 'room', id: '1', data: '{"a":1}' },
      { event: 'message', id: '', data: 'one\ntwo' },
      { event: 'room-deleted', id: '3', data: '{}' },
    ]);
    expect(seen).toEqual(client.events);
    expect(client.comments).toBe(2);
    expect(client.of('room')).toEqual([{ a: 1 }]);
  });

  it('keeps no events when asked not to, and keeps the body of a refusal', async () => {
    const stream = await serve(['data: x\n\n']);
    const quiet = await SseClient.open(stream.url, {}, { keep: false, onEvent: () => undefined });
    expect(await quiet.ended()).toBe(true);
    expect(quiet.events).toEqual([]);
    stream.server.close();

    const refusal = await serve(['{"code":"RATE_LIMITED"}'], 429);
    const refused = await SseClient.open(refusal.url);
    refusal.server.close();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ code: 'RATE_LIMITED' });
  });
});
