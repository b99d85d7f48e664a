import { KvBuckets } from '@oasis198/contracts';
import { LIMITS_BUCKET_MAX_VALUE_SIZE, LIMITS_FULL_MESSAGE } from '@oasis198/service-kit';
import { connect, DiscardPolicy, type NatsConnection } from 'nats';
import { useGameStack } from './testing/game-stack';

const BUCKET_BYTES = 64 * 1024;
const bucketEnv = { LIMITS_BUCKET_MAX_BYTES: String(BUCKET_BYTES) };

/**
 * docs/adr/0016: the limits bucket is bounded, and a full one (a flood of new keys) stops no game:
 * pacing limits count a key it has no room for on the replica, while the guessing limits (failed
 * logins, passcodes) answer 503 for such a key. Real NATS, the gateway and rooms sharing the bucket.
 */
// At file level, so the suite's afterAll (its NATS connection closed) runs before the stack's
// servers stop: a connection closed while reconnecting keeps Jest waiting.
const stack = useGameStack(bucketEnv, bucketEnv);

describe('a full limits bucket', () => {
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: stack().infra.natsUrl });
  });

  afterAll(async () => {
    await nc?.close();
  });

  const bucketInfo = async () => (await nc.jetstreamManager()).streams.info(`KV_${KvBuckets.limits}`);

  it('is bounded as configured, discarding new keys', async () => {
    expect((await bucketInfo()).config).toMatchObject({
      max_bytes: BUCKET_BYTES,
      max_msg_size: LIMITS_BUCKET_MAX_VALUE_SIZE,
      discard: DiscardPolicy.New,
    });
  });

  it('stops no move or room edit; a failed login or a passcode try with a new key answers 503', async () => {
    const s = stack();
    const { alice, bob, room } = await s.startedGame();
    const [carol, dave] = await Promise.all([s.register('c'), s.register('d')]);
    const locked = (await s.createRoom(carol, { passCode: '2468' })).body;

    // A flood of new keys fills the bucket.
    const kv = await nc.jetstream().views.kv(KvBuckets.limits, { bindOnly: true });
    let refusal: unknown;
    for (let i = 0; i < 5000 && !refusal; i++) {
      await kv.put(`flood.${i}`, new TextEncoder().encode('{"c":1,"e":1}')).catch((error: unknown) => {
        refusal = error;
      });
    }
    expect(String(refusal)).toMatch(/maximum bytes exceeded/);
    const full = (await bucketInfo()).state;

    // Alice's first move is a new key for the per-user edit limit: counted on the replica.
    expect((await s.move(alice, room._id, 3)).status).toBe(200);
    expect((await s.move(bob, room._id, 4)).status).toBe(200);
    expect((await s.move(alice, room._id, 5)).status).toBe(200);
    expect((await s.createRoom(dave)).status).toBe(201);

    // The guessing limits fail closed for a key the bucket has no room for.
    const login = await s.call('POST', '/api/users/login', {
      body: { email: 'nobody@example.com', password: 'Wrong98765' },
    });
    expect(login).toMatchObject({ status: 503, body: { message: LIMITS_FULL_MESSAGE } });
    expect(await s.join(dave, locked._id, '2468')).toMatchObject({
      status: 503,
      body: { message: LIMITS_FULL_MESSAGE },
    });
    // Nothing was dropped to make room, nothing added.
    expect((await bucketInfo()).state).toMatchObject({ messages: full.messages, bytes: full.bytes });
    expect(await kv.get('flood.0')).toBeTruthy();
  });
});
