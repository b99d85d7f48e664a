import { KvBucketMaxValueSize, KvBuckets } from '@oasis198/contracts';
import { uniqueName, useTestInfra } from '@oasis198/testing';
import { connect, nanos, type NatsConnection } from 'nats';
import { openKvBucket } from './kv-bucket';

// At file level, so the suite's own afterAll hooks (closing connections) run before NATS stops.
const infra = useTestInfra({ mongo: false });

/** Opening KV buckets on a real NATS: created when missing, limits kept up to date by the caller's rule. */
describe('openKvBucket', () => {
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
  });

  afterAll(async () => {
    await nc.close();
  });

  const configOf = async (bucket: string) =>
    (await (await nc.jetstreamManager()).streams.info(`KV_${bucket}`)).config;

  it('creates a missing bucket with the options, and opens an existing one as it is', async () => {
    const bucket = uniqueName('kv');
    await openKvBucket(nc, bucket, { history: 1, ttl: 60_000, max_bytes: 1 << 20 });
    expect(await configOf(bucket)).toMatchObject({
      max_age: nanos(60_000),
      max_bytes: 1 << 20,
      max_msgs_per_subject: 1,
    });
    const { kv, updated } = await openKvBucket(nc, bucket, { history: 1, ttl: 5_000, max_bytes: 1 << 10 });
    expect(updated).toBeUndefined();
    expect(await configOf(bucket)).toMatchObject({ max_age: nanos(60_000), max_bytes: 1 << 20 });
    await kv.put('k', new TextEncoder().encode('v'));
    expect((await kv.get('k'))?.string()).toBe('v');
  });

  it("applies the caller's update to the stored config, and nothing when it answers undefined", async () => {
    const bucket = uniqueName('kv');
    await openKvBucket(nc, bucket, { history: 1, ttl: 60_000, max_bytes: 1 << 20 });
    const seen: number[] = [];
    const raise = { max_age: nanos(120_000), max_bytes: 2 << 20 };
    const first = await openKvBucket(nc, bucket, { history: 1, ttl: 120_000 }, (config) => {
      seen.push(config.max_bytes);
      return config.max_bytes === raise.max_bytes ? undefined : raise;
    });
    expect(first.updated).toEqual(raise);
    expect(await configOf(bucket)).toMatchObject({ ...raise, max_msgs_per_subject: 1 });
    const second = await openKvBucket(nc, bucket, { history: 1, ttl: 120_000 }, (config) => {
      seen.push(config.max_bytes);
      return config.max_bytes === raise.max_bytes ? undefined : raise;
    });
    expect(second.updated).toBeUndefined();
    expect(seen).toEqual([1 << 20, 2 << 20]);
  });

  it('applies its update again when another service undid it from an older read', async () => {
    const bucket = uniqueName('kv');
    await openKvBucket(nc, bucket, { history: 1, ttl: 60_000 });
    const jsm = await nc.jetstreamManager();
    const older = await configOf(bucket);
    const opening = openKvBucket(nc, bucket, { history: 1, ttl: 120_000 }, (config) =>
      config.max_age < nanos(120_000) ? { max_age: nanos(120_000) } : undefined,
    );
    // The other service's update lands right after this one's, from a config read before it.
    while ((await configOf(bucket)).max_age !== nanos(120_000)) await new Promise((r) => setTimeout(r, 2));
    await jsm.streams.update(older.name, { ...older, max_msg_size: 512 });
    expect((await opening).updated).toEqual({ max_age: nanos(120_000) });
    expect(await configOf(bucket)).toMatchObject({ max_age: nanos(120_000), max_msg_size: 512 });
  });

  it('lets two callers with different settings create a bucket at the same moment', async () => {
    const bucket = uniqueName('kv');
    const opened = await Promise.all(
      [10_000, 20_000, 30_000, 40_000].map((ttl) => openKvBucket(nc, bucket, { history: 1, ttl })),
    );
    expect(opened).toHaveLength(4);
    expect([10_000, 20_000, 30_000, 40_000].map(nanos)).toContain((await configOf(bucket)).max_age);
  });

  it("bounds the values of a bucket named in the contracts, an existing one too, whatever the caller's options", async () => {
    const bucket = KvBuckets.tokens;
    // As a release that did not bound its values created it.
    await nc.jetstream().views.kv(bucket, { history: 1, ttl: 60_000, max_bytes: 1 << 20 });
    expect((await configOf(bucket)).max_msg_size).toBe(-1);
    const { kv, updated } = await openKvBucket(nc, bucket, { history: 1, ttl: 60_000, max_bytes: 1 << 20 });
    expect(updated).toEqual({ max_msg_size: KvBucketMaxValueSize[bucket] });
    expect(await configOf(bucket)).toMatchObject({ max_msg_size: 128 * 1024, max_bytes: 1 << 20 });
    await kv.put('small', new Uint8Array(64 * 1024));
    await expect(kv.put('large', new Uint8Array(200 * 1024))).rejects.toThrow(/maximum/i);
    // A caller's own update is kept alongside.
    const again = await openKvBucket(nc, bucket, { history: 1, ttl: 60_000 }, () => ({ max_bytes: 2 << 20 }));
    expect(again.updated).toEqual({ max_bytes: 2 << 20 });
    expect(await configOf(bucket)).toMatchObject({ max_msg_size: 128 * 1024, max_bytes: 2 << 20 });
  });
});
