import { AppError } from '@oasis198/contracts';
import type { JetStreamManager } from 'nats';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import { isOutOfSpace } from './nats-errors';
import { StreamCapacity, type StreamCapacityState } from './stream-capacity';
import type { StreamSpec } from './stream-setup';

export interface CapacityWatchOptions {
  /** How often stream info is read (a refused publish marks the stream full at once). */
  everyMs: number;
  /** From this share of max_bytes on, the stream counts as full (room for the writes until the next look). */
  fullRatio: number;
}

/** What a service answers (503 UNAVAILABLE) while the stream its changes publish to is full. */
export const STREAM_FULL_MESSAGE =
  'Changes cannot be saved right now because event storage is full. Please try again later.';

/**
 * How full the watched streams are (assertCanPublish, the oasis_stream_* gauges): stream info
 * now and every `everyMs`, and a stream marked full at once when a publish to it is refused for
 * lack of space (refused).
 */
export class CapacityWatch {
  private capacity?: StreamCapacity;
  private timer?: NodeJS.Timeout;
  private manager?: JetStreamManager;
  private readonly watched = new Map<string, StreamSpec>();
  private readonly fullStreams = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  async watch(
    jsm: JetStreamManager,
    streams: readonly StreamSpec[],
    options: CapacityWatchOptions,
  ): Promise<void> {
    this.manager = jsm;
    this.capacity ??= new StreamCapacity(options.fullRatio);
    for (const stream of streams) this.watched.set(stream.name, stream);
    await this.refresh();
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), options.everyMs);
    this.timer.unref();
  }

  /** Reads the watched streams' info now (watch() does it every few seconds). */
  async refresh(): Promise<void> {
    const capacity = this.capacity;
    if (!capacity || !this.manager) return;
    for (const name of this.watched.keys()) {
      try {
        const { state, config } = await this.manager.streams.info(name);
        capacity.observe(name, { bytes: state.bytes, messages: state.messages, maxBytes: config.max_bytes });
      } catch (error) {
        // NATS away: the view stays as last seen; publishes that fail meanwhile are retried.
        this.logger.debug({ err: error, stream: name }, 'could not read stream info');
        continue;
      }
      this.report(name);
    }
  }

  /** Refuses (503 UNAVAILABLE) while the stream counts as full: a change that would publish to it must not be written. */
  assertCanPublish(stream: string): void {
    if (this.capacity?.isFull(stream)) throw new AppError('UNAVAILABLE', STREAM_FULL_MESSAGE);
  }

  /** How full a watched stream was at the last look; undefined before the first. */
  capacityOf(stream: string): StreamCapacityState | undefined {
    return this.capacity?.state(stream);
  }

  /** A publish to `subject` failed: its stream counts as full at once when the refusal says it has no room. */
  refused(subject: string, error: unknown): void {
    const stream = isOutOfSpace(error) ? this.streamOf(subject) : undefined;
    if (!stream || !this.capacity) return;
    this.capacity.markFull(stream);
    this.report(stream);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Updates the gauges, and logs when the stream turns full or has room again. */
  private report(stream: string): void {
    const state = this.capacity?.state(stream);
    if (!state) return;
    if (state.full !== this.fullStreams.has(stream)) {
      if (state.full) {
        this.fullStreams.add(stream);
        this.logger.error(
          { stream, bytes: state.bytes, maxBytes: state.maxBytes, messages: state.messages },
          `stream ${stream} is full: changes that publish to it answer 503 until messages age out or its max_bytes is raised`,
        );
      } else {
        this.fullStreams.delete(stream);
        this.logger.info(
          { stream, bytes: state.bytes, maxBytes: state.maxBytes },
          `stream ${stream} has room again`,
        );
      }
    }
    if (!this.metrics) return;
    this.metrics.streamBytesRatio.set({ stream }, state.bytesRatio);
    this.metrics.streamBytes.set({ stream }, state.bytes);
    this.metrics.streamMessages.set({ stream }, state.messages);
    this.metrics.streamFull.set({ stream }, state.full ? 1 : 0);
  }

  /** The watched stream that stores this subject (stream subjects are `prefix.>` or exact). */
  private streamOf(subject: string): string | undefined {
    for (const stream of this.watched.values()) {
      if (stream.subjects.some((pattern) => subjectMatches(pattern, subject))) return stream.name;
    }
    return undefined;
  }
}

function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern.endsWith('.>')) return subject.startsWith(pattern.slice(0, -1));
  return pattern === subject;
}
