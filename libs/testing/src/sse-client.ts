import { type RoomMovesPushData, type RoomView, withNewMoves } from '@oasis198/contracts';
import { createParser } from 'eventsource-parser';
import { waitFor } from './node-only/net';

/** One Server-Sent Event: `event` defaults to 'message'; `id` is the event's own id field, or ''. */
export interface SseEvent {
  event: string;
  id: string;
  data: string;
}

export interface SseOptions {
  /** Called with every event, in order, as it arrives. */
  onEvent?: (event: SseEvent) => void;
  /** Keep every event in `events` (default true); a long stream's reader may keep what it needs instead. */
  keep?: boolean;
}

/**
 * A Server-Sent Events client on fetch streaming, parsed by eventsource-parser as a browser's
 * EventSource would read the stream; comments (heartbeats) are counted, not delivered.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  status = 0;
  headers?: Headers;
  /** The body of an answer that opened no stream (a refusal's JSON). */
  body = '';
  private readonly controller = new AbortController();
  private done?: Promise<void>;

  private constructor(private readonly options: SseOptions) {}

  static async open(url: string, headers: Record<string, string> = {}, options: SseOptions = {}) {
    const client = new SseClient(options);
    const response = await fetch(url, {
      signal: client.controller.signal,
      headers: { accept: 'text/event-stream', ...headers },
    });
    client.status = response.status;
    client.headers = response.headers;
    if (response.ok && response.body) client.done = client.read(response.body);
    else client.body = await response.text();
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const { onEvent, keep = true } = this.options;
    const parser = createParser({
      onEvent: ({ event = 'message', id = '', data }) => {
        const received = { event, id, data };
        if (keep) this.events.push(received);
        onEvent?.(received);
      },
      onComment: () => void this.comments++,
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
  }

  /** The data of every event of this type, parsed. */
  of<T = Record<string, unknown>>(type: string): T[] {
    return this.events.filter((e) => e.event === type).map((e) => JSON.parse(e.data) as T);
  }

  /**
   * Every state of the room a room stream brought, in order: a `room` frame as it is, a
   * `room-moves` frame put together with the state before it. A `room-moves` frame that continues
   * no state the stream sent throws.
   */
  rooms(): RoomView[] {
    const rooms: RoomView[] = [];
    for (const { event, id, data } of this.events) {
      if (event === 'room') rooms.push(JSON.parse(data) as RoomView);
      if (event !== 'room-moves') continue;
      const previous = rooms.at(-1);
      const room = previous && withNewMoves(previous, JSON.parse(data) as RoomMovesPushData);
      if (!room) throw new Error(`room-moves frame ${id} continues no room this stream sent`);
      rooms.push(room);
    }
    return rooms;
  }

  async until(predicate: (client: SseClient) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    await waitFor(async () => predicate(this), { timeoutMs, intervalMs: 20, what });
  }

  /** Resolves when the server ends the stream. */
  async ended(timeoutMs = 5000): Promise<boolean> {
    if (!this.done) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.done.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.controller.abort();
  }
}
