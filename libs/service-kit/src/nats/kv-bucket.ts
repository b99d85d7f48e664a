import type { KV, KvOptions, NatsConnection, StreamConfig } from 'nats';

/**
 * What to change in a bucket's stream config as stored (`undefined`: nothing). The bucket's owner
 * brings its limits up to date; a service that shares a bucket another one also opens may only
 * raise them, so the two do not undo each other.
 */
export type KvBucketUpdate = (config: StreamConfig) => Partial<StreamConfig> | undefined;

/**
 * Opens a KV bucket, creating it with `options` when missing, then applies `update` to its stream
 * config. Replicas and services start together: when another one creates the bucket at the same
 * moment (with its own settings), this one opens theirs and `update` sees those.
 */
export async function openKvBucket(
  nc: NatsConnection,
  bucket: string,
  options: Partial<KvOptions>,
  update?: KvBucketUpdate,
): Promise<{ kv: KV; updated?: Partial<StreamConfig> }> {
  const open = () => nc.jetstream().views.kv(bucket, options);
  let kv: KV;
  try {
    kv = await open();
  } catch (error) {
    if (!String((error as Error).message).includes('already in use')) throw error;
    kv = await open();
  }
  if (!update) return { kv };
  const { config } = (await kv.status()).streamInfo;
  const changes = update(config);
  if (!changes) return { kv };
  const jsm = await nc.jetstreamManager();
  await jsm.streams.update(config.name, { ...config, ...changes });
  return { kv, updated: changes };
}
