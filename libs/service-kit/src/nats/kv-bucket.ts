import { KvBucketMaxValueSize } from '@oasis198/contracts';
import type { KV, KvOptions, NatsConnection, StreamConfig } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';

/** Updates of a bucket's config one opening may make while other services update it too. */
const SETTLE_ATTEMPTS = 3;
/** How long after its update an opening reads the config again. */
const SETTLE_PAUSE_MS = 100;

/**
 * What to change in a bucket's stream config as stored (`undefined`: nothing). The bucket's owner
 * brings its limits up to date; a service that shares a bucket another one also opens may only
 * raise them, so the two do not undo each other.
 */
export type KvBucketUpdate = (config: StreamConfig) => Partial<StreamConfig> | undefined;

/**
 * Opens a KV bucket, creating it with `options` when missing, then applies `update` to its stream
 * config; with `options.replicas`, an existing bucket is brought to that many replicas too.
 * Replicas and services start together: when another one creates the bucket at the same
 * moment (with its own settings), this one opens theirs and `update` sees those. A bucket named in
 * KvBucketMaxValueSize takes values of that size at most, on creation and on an existing bucket.
 */
export async function openKvBucket(
  nc: NatsConnection,
  bucket: string,
  options: Partial<KvOptions>,
  update?: KvBucketUpdate,
): Promise<{ kv: KV; updated?: Partial<StreamConfig> }> {
  const maxValueSize = (KvBucketMaxValueSize as Record<string, number | undefined>)[bucket];
  const open = () =>
    nc.jetstream().views.kv(bucket, maxValueSize === undefined ? options : { ...options, maxValueSize });
  let kv: KV;
  try {
    kv = await open();
  } catch (error) {
    if (!String((error as Error).message).includes('already in use')) throw error;
    kv = await open();
  }
  if (!update && maxValueSize === undefined && options.replicas === undefined) return { kv };
  const { config } = (await kv.status()).streamInfo;
  let changes = update?.(config);
  if (maxValueSize !== undefined && config.max_msg_size !== maxValueSize) {
    changes = { ...changes, max_msg_size: maxValueSize };
  }
  if (options.replicas !== undefined && config.num_replicas !== options.replicas) {
    changes = { ...changes, num_replicas: options.replicas };
  }
  if (!changes) return { kv };
  const jsm = await nc.jetstreamManager();
  await jsm.streams.update(config.name, { ...config, ...changes });
  // A stream update writes the whole config: another service updating the same bucket from a read
  // older than this update can undo it. The config is read again a moment later, and these
  // changes applied again while they do not hold.
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    await sleep(SETTLE_PAUSE_MS);
    const now = (await kv.status()).streamInfo.config;
    const held = Object.entries(changes).every(([key, value]) => now[key as keyof StreamConfig] === value);
    if (held) break;
    await jsm.streams.update(config.name, { ...now, ...changes });
  }
  return { kv, updated: changes };
}
