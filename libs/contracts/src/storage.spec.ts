import { KvBucketMaxValueSize, KvBuckets, Streams } from './subjects';

/** NATS's default max_payload: no message is larger, whatever a stream allows. */
const MAX_PAYLOAD = 1024 * 1024;

describe('JetStream storage', () => {
  it.each(Object.values(Streams).map((stream) => [stream.name, stream] as const))(
    'bounds the stream %s: max_bytes and a max_msg_size within max_payload',
    (_name, stream) => {
      expect(stream.maxBytes).toBeGreaterThan(0);
      expect(stream.maxMsgSize).toBeGreaterThan(0);
      expect(stream.maxMsgSize).toBeLessThanOrEqual(MAX_PAYLOAD);
      expect(stream.maxMsgSize).toBeLessThan(stream.maxBytes);
    },
  );

  it.each(Object.values(KvBuckets))('bounds the values of the bucket %s', (bucket) => {
    expect(KvBucketMaxValueSize[bucket]).toBeGreaterThan(0);
    expect(KvBucketMaxValueSize[bucket]).toBeLessThanOrEqual(MAX_PAYLOAD);
  });
});
