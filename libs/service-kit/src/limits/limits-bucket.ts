import { KvBucketMaxValueSize, KvBuckets } from '@oasis198/contracts';
import { z } from 'zod';
import type { BucketBounds } from './versioned-store';

const MiB = 1024 * 1024;

/**
 * The shared limits bucket (KvBuckets.limits): one key per counted account, address, user or
 * passcode try, about 200 bytes each in the file store, so 16 MiB holds some 80,000 live keys.
 * Sized to fit the 1 GiB JetStream store with the streams (928 MiB) and the token bucket (64 MiB).
 */
export const LIMITS_BUCKET_MAX_BYTES = 16 * MiB;
/** A key's value is a window, `{"c":10,"e":1764636000000}`; the write's headers count too. */
export const LIMITS_BUCKET_MAX_VALUE_SIZE = KvBucketMaxValueSize[KvBuckets.limits];

/** The environment of every service that opens the limits bucket (gateway, rooms): set it alike in each. */
export const limitsBucketEnv = {
  /**
   * Bytes the limits bucket may hold. When full, keys it holds still change; a new key of a
   * pacing limit counts on its replica only, and of a guessing limit answers 503 (docs/adr/0016).
   */
  LIMITS_BUCKET_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(LIMITS_BUCKET_MAX_BYTES),
};

export function limitsBucketBounds(config: {
  LIMITS_BUCKET_MAX_BYTES: number;
  NATS_STREAM_REPLICAS?: number;
}): BucketBounds {
  return {
    maxBytes: config.LIMITS_BUCKET_MAX_BYTES,
    maxValueSize: LIMITS_BUCKET_MAX_VALUE_SIZE,
    replicas: config.NATS_STREAM_REPLICAS,
  };
}
