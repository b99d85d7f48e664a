import { defer, type Observable, of, throwError } from 'rxjs';
import { createLogger } from '../logger';
import { RpcClient } from './rpc-client';

/** The client's send, as ClientNats answers it: refused while the connection is lost, then answered. */
function withSend(client: RpcClient, send: () => Observable<unknown>) {
  (client as unknown as { client: { send: () => unknown } }).client = { send: () => defer(send) };
}

describe('RpcClient', () => {
  const logger = createLogger('rpc-client-spec', 'silent');

  it('waits for the reconnect when the connection is lost, instead of answering 503 at once', async () => {
    const client = new RpcClient(['nats://127.0.0.1:1'], 'spec', 2000, logger);
    let calls = 0;
    withSend(client, () =>
      ++calls <= 3 ? throwError(() => 'Error: Connection lost. Trying to reconnect...') : of({ ok: true }),
    );
    await expect(client.request('rooms.edit', {})).resolves.toEqual({ ok: true });
    expect(calls).toBe(4);
  });

  it('answers 503 when the connection is not back before the deadline', async () => {
    const client = new RpcClient(['nats://127.0.0.1:1'], 'spec', 300, logger);
    withSend(client, () => throwError(() => 'Error: Connection lost. Trying to reconnect...'));
    await expect(client.request('rooms.edit', {})).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
