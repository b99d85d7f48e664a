/** What stream info says about a stream's room (JetStream's StreamInfo, the fields used here). */
export interface StreamUsage {
  bytes: number;
  messages: number;
  /** The stream's max_bytes; 0 or less: no limit. */
  maxBytes: number;
}

export interface StreamCapacityState extends StreamUsage {
  /** bytes / maxBytes (0 without a limit). */
  bytesRatio: number;
  full: boolean;
}

interface Entry {
  usage?: StreamUsage;
  /**
   * Set when a publish was refused for lack of space. `pending` until the next stream info, whose
   * usage then becomes the mark; the mark goes only when a later info shows room made since
   * (messages aged out, or a larger limit).
   */
  refused?: { pending: true } | { pending: false; at: StreamUsage };
}

/**
 * The service's view of how full its streams are, kept fresh cheaply: stream info every few
 * seconds (observe) and, at once, every publish refused for lack of space (markFull). A stream is
 * full from `fullRatio` of its max_bytes on, so the writes of the few seconds between two looks
 * still fit, and from a refused publish until room is made again.
 */
export class StreamCapacity {
  private readonly streams = new Map<string, Entry>();

  constructor(private readonly fullRatio: number) {}

  observe(stream: string, usage: StreamUsage): void {
    const entry = this.entry(stream);
    entry.usage = usage;
    const refused = entry.refused;
    if (!refused) return;
    if (refused.pending) {
      entry.refused = { pending: false, at: usage };
      return;
    }
    const madeRoom =
      usage.bytes < refused.at.bytes ||
      usage.messages < refused.at.messages ||
      limitOf(usage.maxBytes) > limitOf(refused.at.maxBytes);
    if (madeRoom) entry.refused = undefined;
  }

  markFull(stream: string): void {
    this.entry(stream).refused = { pending: true };
  }

  isFull(stream: string): boolean {
    const entry = this.streams.get(stream);
    if (!entry) return false;
    if (entry.refused) return true;
    return entry.usage ? ratioOf(entry.usage) >= this.fullRatio : false;
  }

  state(stream: string): StreamCapacityState | undefined {
    const usage = this.streams.get(stream)?.usage;
    if (!usage) return undefined;
    return { ...usage, bytesRatio: ratioOf(usage), full: this.isFull(stream) };
  }

  private entry(stream: string): Entry {
    let entry = this.streams.get(stream);
    if (!entry) {
      entry = {};
      this.streams.set(stream, entry);
    }
    return entry;
  }
}

const limitOf = (maxBytes: number): number => (maxBytes > 0 ? maxBytes : Infinity);

function ratioOf(usage: StreamUsage): number {
  return usage.maxBytes > 0 ? usage.bytes / usage.maxBytes : 0;
}
