import { uniqueName, useTestInfra } from '@oasis198/testing';
import { connect, DiscardPolicy, type NatsConnection } from 'nats';
import { LIMITS_FULL_MESSAGE, openSharedLimits } from './shared-limit';

// At file level, so the suite's own afterAll hooks (closing connections) run before NATS stops.
const infra = useTestInfra({ mongo: false });

/** The limits on a real NATS JetStream KV bucket, with two connections acting as two replicas. */
describe('shared limits on NATS KV', () => {
  let replicas: NatsConnection[] = [];

  beforeAll(async () => {
    replicas = await Promise.all(
      ['replica-a', 'replica-b'].map((name) => connect({ servers: infra().natsUrl, name })),
    );
  });

  afterAll(async () => {
    await Promise.all(replicas.map((nc) => nc.close()));
  });

  const open = <N extends string>(bucket: string, rules: Record<N, { max: number; windowMs: number }>) =>
    Promise.all(replicas.map((nc) => openSharedLimits(nc, bucket, rules)));

  it('allows exactly 10 of 40 parallel reservations from two replicas against a limit of 10', async () => {
    const [a, b] = await open(uniqueName('limits'), { logins: { max: 10, windowMs: 60_000 } });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b)?.logins.reserve('victim@example.com')),
    );
    const allowed = results.filter((r) => r?.allowed);
    expect(allowed).toHaveLength(10);
    expect(allowed.map((r) => r?.count).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    for (const refused of results.filter((r) => !r?.allowed)) {
      expect(refused?.retryAfterMs).toBeGreaterThan(55_000);
      expect(refused?.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    // Both replicas now refuse, whatever each remembers.
    expect(await a?.logins.reserve('victim@example.com')).toMatchObject({ allowed: false });
    expect(await b?.logins.reserve('victim@example.com')).toMatchObject({ allowed: false });
  });

  it('sees a reset and a refund made by the other replica', async () => {
    const [a, b] = await open(uniqueName('limits'), { codes: { max: 2, windowMs: 60_000 } });
    const first = await a?.codes.reserve('room:player');
    await b?.codes.reserve('room:player');
    expect(await a?.codes.reserve('room:player')).toMatchObject({ allowed: false, count: 2 });
    if (first) await b?.codes.refund(first);
    expect(await a?.codes.reserve('room:player')).toMatchObject({ allowed: true, count: 2 });
    await b?.codes.reset('room:player');
    expect(await a?.codes.reserve('room:player')).toMatchObject({ allowed: true, count: 1 });
  });

  it('opens a new window when the old one ends, and lets keys expire with the bucket TTL', async () => {
    const bucket = uniqueName('limits');
    const [a] = await open(bucket, { edits: { max: 2, windowMs: 1000 } });
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: true, count: 1 });
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: true, count: 2 });
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: false });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: true, count: 1 });

    const kv = await replicas[0]?.jetstream().views.kv(bucket);
    const status = await kv?.status();
    expect(status?.ttl).toBe(1000);
    // The last write's message outlives its window by at most the TTL, then the key is gone.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await kv?.status())?.values).toBe(0);
    // A replica that still remembers the key's revision recovers: the write fails, it reads, it writes.
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: true, count: 1 });
  });

  it('lets each key go when its own window ends, not after the longest window of the bucket', async () => {
    const bucket = uniqueName('limits');
    const [a] = await open(bucket, {
      edits: { max: 5, windowMs: 1000 },
      logins: { max: 5, windowMs: 900_000 },
    });
    await a?.edits.reserve('user');
    await a?.logins.reserve('someone@example.com');
    const kv = await replicas[0]?.jetstream().views.kv(bucket);
    expect(await kv?.status()).toMatchObject({ ttl: 900_000, values: 2 });
    const jsm = await replicas[0]?.jetstreamManager();
    const config = (await jsm?.streams.info(`KV_${bucket}`))?.config;
    expect((config as { allow_msg_ttl?: boolean } | undefined)?.allow_msg_ttl).toBe(true);
    // The edit's 1 s window (its TTL rounds up to whole seconds), then the server's expiry sweep.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await kv?.status())?.values).toBe(1);
    expect(await a?.edits.reserve('user')).toMatchObject({ allowed: true, count: 1 });
    expect(await a?.logins.reserve('someone@example.com')).toMatchObject({ allowed: true, count: 2 });
  });

  it("raises an existing bucket's TTL to the longest window", async () => {
    const bucket = uniqueName('limits');
    await open(bucket, { short: { max: 1, windowMs: 1000 } });
    await open(bucket, { short: { max: 1, windowMs: 1000 }, long: { max: 1, windowMs: 900_000 } });
    const kv = await replicas[0]?.jetstream().views.kv(bucket);
    expect((await kv?.status())?.ttl).toBe(900_000);
  });

  it('lets two services with different windows open a new bucket at the same moment', async () => {
    // The gateway and rooms start together and share the bucket: neither may fail to start.
    const bucket = uniqueName('limits');
    const [gateway, rooms] = replicas;
    if (!gateway || !rooms) throw new Error('no connections');
    const opened = await Promise.all([
      openSharedLimits(gateway, bucket, { logins: { max: 1, windowMs: 900_000 } }),
      openSharedLimits(rooms, bucket, { passcodes: { max: 1, windowMs: 600_000 } }),
    ]);
    expect(opened).toHaveLength(2);
    const kv = await gateway.jetstream().views.kv(bucket);
    expect((await kv.status()).ttl).toBe(900_000);
  });

  it('bounds the bucket (an existing unbounded one too) and, once full, keeps pacing limits counting and refuses guessing ones', async () => {
    const bucket = uniqueName('limits');
    const [gateway, rooms] = replicas;
    if (!gateway || !rooms) throw new Error('no connections');
    // A bucket from a release that did not bound it.
    await openSharedLimits(rooms, bucket, { passcodes: { max: 5, windowMs: 60_000 } });
    const bounds = { maxBytes: 64 * 1024, maxValueSize: 512 };
    const rules = { edits: { max: 3, windowMs: 60_000 }, logins: { max: 3, windowMs: 60_000 } };
    const limits = await openSharedLimits(gateway, bucket, rules, {
      bucket: bounds,
      localWhenFull: ['edits'],
    });
    const jsm = await gateway.jetstreamManager();
    const info = async () => jsm.streams.info(`KV_${bucket}`);
    expect((await info()).config).toMatchObject({
      max_bytes: 64 * 1024,
      max_msg_size: 512,
      discard: DiscardPolicy.New,
    });

    await limits.edits.reserve('player-known');
    await limits.logins.reserve('known@example.com');
    // A flood of new keys fills it; every one the bucket has no room for is refused, none dropped.
    const kv = await gateway.jetstream().views.kv(bucket);
    let refused: unknown;
    for (let i = 0; i < 2000 && !refused; i++) {
      await kv.put(`filler.${i}`, new TextEncoder().encode('{"c":1,"e":1}')).catch((error: unknown) => {
        refused = error;
      });
    }
    expect(String(refused)).toMatch(/maximum bytes exceeded/);
    const full = (await info()).state;
    expect(full.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(await kv.get('filler.0')).toBeTruthy();
    await expect(kv.put('value.too.large', new Uint8Array(1024))).rejects.toThrow(/maximum/);

    // Pacing: a new key counts on this replica; keys the bucket holds still count there.
    for (let i = 1; i <= 3; i++) {
      expect(await limits.edits.reserve('player-new')).toMatchObject({ allowed: true, count: i });
    }
    expect(await limits.edits.reserve('player-new')).toMatchObject({ allowed: false });
    expect(await limits.edits.reserve('player-known')).toMatchObject({ allowed: true, count: 2 });
    // Guessing: a new key answers 503 (fails closed); one the bucket holds still counts.
    await expect(limits.logins.reserve('new@example.com')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: LIMITS_FULL_MESSAGE,
    });
    expect(await limits.logins.reserve('known@example.com')).toMatchObject({ allowed: true, count: 2 });
    expect((await info()).state.messages).toBe(full.messages);
  });
});
