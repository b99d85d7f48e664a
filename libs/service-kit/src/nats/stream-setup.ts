import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
} from 'nats';
import type { Logger } from 'pino';
import { isNotFound } from './nats-errors';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /**
   * Bytes the stream may hold. Streams discard NEW messages: a full stream refuses the next
   * event (the publisher answers 503) and never drops one that is stored. Unset: no limit.
   */
  maxBytes?: number;
  /** The largest message the stream accepts. Unset: NATS's max_payload. */
  maxMsgSize?: number;
  /** How long a message is kept at most, set when the stream is created; 0 keeps it. Unset: 14 days. */
  maxAgeMs?: number;
  /**
   * 'interest': a message is kept until every durable consumer whose filter takes it has acked
   * it, and one that no consumer takes is not stored at all; so its publisher creates those
   * consumers before it publishes (keepPublishedStream's readers). Unset: 'limits', every
   * message is kept until the limits drop it.
   */
  retention?: 'limits' | 'interest';
}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubjects: readonly string[];
  /** How long a delivered event waits for its ack before it is delivered again (default 30 s). */
  ackWaitS?: number;
  /** Delivered and not yet acked at most, across the replicas (default 1,000). */
  maxAckPending?: number;
  /** Deliveries of one message at most; -1 never gives up (unset: the server's default, -1). */
  maxDeliver?: number;
}

/**
 * How long each pull of consume() lasts (heartbeats every half of it): a pull held by a NATS node
 * that died is noticed and sent again in seconds; nats.js's default 30 s left a consumer idle that
 * long after a node's crash (rewards paid 10+ s late in the fault test).
 */
export const PULL_EXPIRES_MS = 5000;

/**
 * A consumer's settings from its spec: the ack wait before a redelivery (30 s by default), the
 * unacked messages at most (1,000 by default) and, when the spec sets it, the deliveries at most.
 */
export const consumerSettings = (spec: ConsumerSpec): Partial<ConsumerConfig> => ({
  ack_wait: Math.round((spec.ackWaitS ?? 30) * 1e9), // the server takes whole nanoseconds
  max_ack_pending: spec.maxAckPending ?? 1000,
  ...(spec.maxDeliver === undefined ? {} : { max_deliver: spec.maxDeliver }),
});
const DAY_NS = 24 * 60 * 60 * 1e9;

/**
 * Creates each stream if missing, with its retention, limits, `replicas` (default 1) and discard
 * policy NEW. With updateLimits (the stream's publisher), an existing stream's retention, limits,
 * replicas and discard policy are brought up to date too, since deployments upgrade in place; lowering max_bytes
 * below what is stored drops nothing under discard NEW, it only refuses new messages until
 * there is room. Consumers leave an existing stream as it is, so services configured
 * differently do not undo each other.
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  streams: readonly StreamSpec[],
  logger: Pick<Logger, 'info'>,
  options: { updateLimits?: boolean; replicas?: number } = {},
): Promise<void> {
  for (const stream of streams) {
    const limits = {
      retention: stream.retention === 'interest' ? RetentionPolicy.Interest : RetentionPolicy.Limits,
      max_bytes: stream.maxBytes ?? -1,
      max_msg_size: stream.maxMsgSize ?? -1,
      discard: DiscardPolicy.New,
      num_replicas: options.replicas ?? 1,
    };
    let current;
    try {
      current = await jsm.streams.info(stream.name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await jsm.streams.add({
          name: stream.name,
          subjects: [...stream.subjects],
          storage: StorageType.File,
          max_age: stream.maxAgeMs === undefined ? 14 * DAY_NS : stream.maxAgeMs * 1e6,
          duplicate_window: 2 * 60 * 1e9,
          ...limits,
        });
        logger.info({ stream: stream.name, ...limits }, 'created stream');
      } catch (addError) {
        // Another replica may have created it at the same moment.
        if (!String((addError as Error).message).includes('already in use')) {
          throw streamError(stream.name, addError);
        }
      }
      continue;
    }
    if (!options.updateLimits) continue;
    const config = current.config;
    if (
      config.retention === limits.retention &&
      config.max_bytes === limits.max_bytes &&
      config.max_msg_size === limits.max_msg_size &&
      config.discard === limits.discard &&
      config.num_replicas === limits.num_replicas
    ) {
      continue;
    }
    try {
      await jsm.streams.update(stream.name, { ...config, ...limits });
    } catch (error) {
      throw streamError(stream.name, error);
    }
    logger.info(
      {
        stream: stream.name,
        ...limits,
        was: {
          retention: config.retention,
          max_bytes: config.max_bytes,
          max_msg_size: config.max_msg_size,
          discard: config.discard,
          num_replicas: config.num_replicas,
        },
      },
      'updated stream configuration',
    );
  }
}

/**
 * Creates the durable consumer of `spec` when it is missing (explicit acks, from the stream's
 * start, its subjects and consumerSettings). An existing one gets the subjects and settings that
 * differ, so an upgrade that changes them changes the running consumer (while the old and new
 * releases start side by side, the last to start wins; once rolled out, the new one stands).
 * True when this call created it.
 */
export async function ensureDurable(jsm: JetStreamManager, spec: ConsumerSpec): Promise<boolean> {
  const wanted: Partial<ConsumerConfig> = {
    filter_subjects: [...spec.filterSubjects],
    ...consumerSettings(spec),
  };
  try {
    const { config } = await jsm.consumers.info(spec.stream, spec.durable);
    const changed = changedSettings(config, wanted);
    if (Object.keys(changed).length > 0) await jsm.consumers.update(spec.stream, spec.durable, changed);
    return false;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await jsm.consumers.add(spec.stream, {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...wanted,
  });
  return true;
}

/** The settings of `wanted` that `config` does not have; one filter subject reads as a list of one. */
function changedSettings(config: ConsumerConfig, wanted: Partial<ConsumerConfig>): Partial<ConsumerConfig> {
  const current: Record<string, unknown> = {
    ...config,
    filter_subjects: [
      ...(config.filter_subjects ?? (config.filter_subject ? [config.filter_subject] : [])),
    ].sort(),
  };
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted)) {
    const comparable = key === 'filter_subjects' ? [...(value as string[])].sort() : value;
    if (JSON.stringify(current[key]) !== JSON.stringify(comparable)) changed[key] = value;
  }
  // The update is merged into the stored config, and the server refuses both fields set.
  if (changed['filter_subjects'] && config.filter_subject) changed['filter_subject'] = '';
  return changed as Partial<ConsumerConfig>;
}

/**
 * Deletes durable consumers that no service reads any more (contracts' RetiredConsumers), where
 * they still exist: on an interest stream, one left behind keeps every event it takes.
 */
export async function deleteRetiredConsumers(
  jsm: JetStreamManager,
  retired: readonly { stream: string; durable: string }[],
  logger: Pick<Logger, 'info'>,
): Promise<void> {
  for (const { stream, durable } of retired) {
    try {
      await jsm.consumers.delete(stream, durable);
      logger.info({ stream, consumer: durable }, 'deleted a retired durable consumer');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function streamError(stream: string, error: unknown): Error {
  return new Error(`Cannot configure stream ${stream}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}
