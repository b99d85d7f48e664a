import type { INestApplication } from '@nestjs/common';
import { Requests, type RoomPage } from '@oasis198/contracts';
import { Metrics, type RpcClient } from '@oasis198/service-kit';
import { useTestInfra } from '@oasis198/testing';
import { roomsClient, roomsTestEnv, startRooms, testCaller } from './rooms.test-client';

/**
 * The public reads (room lists, single rooms) under a storm of requests, as anyone could send
 * them: those whose callers gave up are not read, so the next visitor is answered. One read at a
 * time here (PUBLIC_READS_AT_ONCE), 40 rooms, and 1,000 lists asked for at once, whose callers
 * wait 1 s.
 */
const infra = useTestInfra();

describe('rooms under a storm of room lists', () => {
  let app: INestApplication;
  let rpc: RpcClient;
  const { create } = roomsClient(() => rpc);

  beforeAll(async () => {
    const env = roomsTestEnv(infra(), 'rooms-reads', { PUBLIC_READS_AT_ONCE: '1' });
    ({ app, rpc } = await startRooms(env, 'rooms-reads-test'));
  });

  afterAll(async () => {
    await rpc?.close();
    await app?.close();
  });

  it('does not read for callers that gave up: the list asked for after the storm is answered', async () => {
    for (let i = 0; i < 40; i += 8) {
      await Promise.all(Array.from({ length: 8 }, (_, j) => create(testCaller(`reader${i + j}`))));
    }
    const list = (page: number, timeoutMs: number) =>
      rpc.request<RoomPage>(Requests.rooms.list, { page }, timeoutMs);

    const storm = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => list(1 + (i % 5), 1000)));
    const unanswered = storm.filter((r) => r.status === 'rejected' && /not available/.test(String(r.reason)));
    expect(unanswered.length).toBeGreaterThan(0);

    // Without the line, every list of the storm went to the database and the room log at once and
    // ran to its end: this one waited behind the rest of them, and its caller gave up too (503).
    const after = await list(2, 2500);
    expect(after.rooms).toHaveLength(8);

    const { values } = await app.get(Metrics).rpcExpired.get();
    expect(values.find((v) => v.labels.subject === Requests.rooms.list)?.value ?? 0).toBeGreaterThan(0);
  }, 90_000);
});
