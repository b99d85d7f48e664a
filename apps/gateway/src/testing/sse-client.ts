import { type RoomMovesPushData, type RoomView, withNewMoves } from '@oasis198/contracts';
import { waitFor } from '@oasis198/testing';

export interface SseEvent {
  event: string;
  id: string;
  data: string;
}

/**
 * A minimal Server-Sent Events client on fetch streaming, as a browser's EventSource would read
 * the stream: frames separated by a blank line, `event:`, `id:` and `data:` fields, comments
 * (heartbeats) counted but not delivered.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly frames: string[] = [];
  comments = 0;
  status = 0;
  headers?: Headers;
  private readonly controller = new AbortController();
  private done?: Promise<void>;

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await fetch(url, {
      signal: client.controller.signal,
      headers: { accept: 'text/event-stream', ...headers },
    });
    client.status = response.status;
    client.headers = response.headers;
    if (response.ok && response.body) client.done = client.read(response.body);
    else client.frames.push(await response.text());
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.frames.push(block);
          this.parse(block);
        }
      }
    } catch {
      // aborted by close()
    }
  }

  private parse(block: string): void {
    const event: SseEvent = { event: 'message', id: '', data: '' };
    let hasData = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
      else if (field === 'data') {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      }
    }
    if (hasData) this.events.push(event);
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
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs));
    return Promise.race([this.done.then(() => true), timeout]);
  }

  close(): void {
    this.controller.abort();
  }
}
