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
}

/**
 * How long each pull of consume() lasts (heartbeats every half of it): a pull held by a NATS node
 * that died is noticed and sent again in seconds; nats.js's default 30 s left a consumer idle that
 * long after a node's crash (rewards paid 10+ s late in the fault test).
 */
export const PULL_EXPIRES_MS = 5000;

/** Every consume() consumer's settings: 30 s to ack before a redelivery, 1,000 messages in hand at most. */
export const CONSUMER_SETTINGS: Partial<ConsumerConfig> = { ack_wait: 30 * 1e9, max_ack_pending: 1000 };
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
 * start, `spec`'s subjects, plus `settings`); an existing one is left as it is. True when this
 * call created it.
 */
export async function ensureDurable(
  jsm: JetStreamManager,
  spec: ConsumerSpec,
  settings: Partial<ConsumerConfig>,
): Promise<boolean> {
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
    return false;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await jsm.consumers.add(spec.stream, {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subjects: [...spec.filterSubjects],
    ...settings,
  });
  return true;
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
