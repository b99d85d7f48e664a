import type { ConsumerSpec, JetStreamService, StreamSpec } from '../nats/jetstream.service';
import type { PublisherConfig } from './publisher-env';

/**
 * At start-up, by the one service that publishes to `stream`: creates it or brings its limits up
 * to date (only its publisher does, so services configured differently do not undo each other),
 * creates the durable consumers that read it (`readers`: an interest stream stores an event only
 * for the consumers that exist when it is published, and their services may start later), then
 * watches how full it is every STREAM_CHECK_MS, which assertCanPublish() goes by.
 */
export async function keepPublishedStream(
  jetstream: JetStreamService,
  stream: StreamSpec,
  config: PublisherConfig,
  readers: readonly ConsumerSpec[] = [],
): Promise<void> {
  await jetstream.ensureStreams([stream], { updateLimits: true });
  for (const reader of readers) await jetstream.ensureConsumer(reader);
  await jetstream.watchCapacity([stream], {
    everyMs: config.STREAM_CHECK_MS,
    fullRatio: config.STREAM_FULL_RATIO,
  });
}
