/**
 * The network boundary for component tests. HTTP goes through the app's real fetch and MSW answers
 * it from a route table that records every call; the room socket is MSW's WebSocket link, answering
 * each frame with a function of the test's; EventSource is a fake whose events a test pushes by
 * hand (jsdom has no EventSource for MSW's sse handlers to serve).
 */
import { ROOM_SOCKET_PATH, type RoomSocketAnswer } from '@oasis198/contracts';
import { http, HttpResponse, ws } from 'msw';
import { setupServer } from 'msw/node';

export interface FakeRequest {
  method: string;
  path: string;
  url: URL;
  body: unknown;
  /** The request's headers by their usual names (e.g. Authorization). */
  headers: Record<string, string>;
}

export type FakeResponse =
  { status?: number; body?: unknown; headers?: Record<string, string> } | 'network-error';
export type Handler = FakeResponse | ((req: FakeRequest) => FakeResponse | Promise<FakeResponse>);

export interface FakeApi {
  calls: FakeRequest[];
  /** Calls matching "METHOD /path" (the query string is ignored). */
  callsTo: (route: string) => FakeRequest[];
  /** Replaces or adds a route. */
  on: (route: string, handler: Handler) => void;
}

function matcher(route: string): { method: string; test: (path: string) => boolean; exact: boolean } {
  const [method = 'GET', pattern = '/'] = route.split(' ');
  if (!pattern.includes(':')) return { method, exact: true, test: (path) => path === pattern };
  const regex = new RegExp(`^${pattern.replace(/:[^/]+/g, '[^/]+')}$`);
  return { method, exact: false, test: (path) => regex.test(path) };
}

/** 'authorization' -> 'Authorization', 'content-type' -> 'Content-Type'. */
const usualName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** Routes by method and path (any host), exact paths before patterns; anything else answers 404. */
export function fakeApi(routes: Record<string, Handler> = {}): FakeApi {
  const table = new Map<string, Handler>(Object.entries(routes));
  const calls: FakeRequest[] = [];

  const find = (method: string, path: string): Handler | undefined => {
    const entries = [...table.entries()].map(([route, handler]) => ({ ...matcher(route), handler }));
    return (
      entries.find((e) => e.exact && e.method === method && e.test(path))?.handler ??
      entries.find((e) => !e.exact && e.method === method && e.test(path))?.handler
    );
  };

  served = null;
  server.resetHandlers(
    roomSocketHandler,
    http.all('*', async ({ request }) => {
      const url = new URL(request.url);
      const text = await request.text();
      const headers = Object.fromEntries(
        [...request.headers].map(([name, value]) => [usualName(name), value]),
      );
      const call: FakeRequest = {
        method: request.method,
        path: url.pathname,
        url,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers,
      };
      calls.push(call);
      const handler = find(call.method, call.path);
      const answer: FakeResponse =
        handler === undefined
          ? { status: 404, body: { message: 'Not found.', code: 'NOT_FOUND' } }
          : typeof handler === 'function'
            ? await handler(call)
            : handler;
      if (answer === 'network-error') return HttpResponse.error();
      const init = { status: answer.status ?? 200, headers: answer.headers };
      return answer.body === undefined ? new HttpResponse(null, init) : HttpResponse.json(answer.body, init);
    }),
  );
  return {
    calls,
    callsTo: (route) => {
      const m = matcher(route);
      return calls.filter((c) => c.method === m.method && m.test(c.path));
    },
    on: (route, handler) => void table.set(route, handler),
  };
}

export interface FakeRoomSocket {
  /** The frames the app sent, parsed. */
  frames: Array<{ id: number; roomId: string; body: unknown }>;
  /** Upgrades the app asked for, with the subprotocols it offered. */
  connections: string[][];
  /** Closes every open socket from the server's side. */
  closeAll: () => void;
}

type SocketAnswer = (frame: FakeRoomSocket['frames'][number]) => RoomSocketAnswer | 'silent';

/** The room socket fakeRoomSocket serves; none (every upgrade closed at once) after each fakeApi. */
let served: { fake: FakeRoomSocket; answer: SocketAnswer; open: Set<{ close: () => void }> } | null = null;

const roomSocketLink = ws.link(`ws://localhost${ROOM_SOCKET_PATH}`);
const roomSocketHandler = roomSocketLink.addEventListener('connection', ({ client, info }) => {
  const current = served;
  // As a server that refuses the upgrade: the app keeps to HTTP.
  if (!current) return client.close();
  const { protocols } = info;
  current.fake.connections.push(typeof protocols === 'string' ? [protocols] : [...(protocols ?? [])]);
  current.open.add(client);
  client.addEventListener('message', (event) => {
    const frame = JSON.parse(String(event.data)) as FakeRoomSocket['frames'][number];
    current.fake.frames.push(frame);
    const reply = current.answer(frame);
    if (reply !== 'silent') client.send(JSON.stringify(reply));
  });
});

const server = setupServer(roomSocketHandler);
server.listen({ onUnhandledRequest: 'error' });
afterEach(() => {
  served = null;
  server.resetHandlers();
});
afterAll(() => server.close());

/**
 * Serves the room socket until the next fakeApi: `answer` gives each frame's answer, 'silent' for
 * none. Without it, every upgrade is closed at once and the app keeps to HTTP.
 */
export function fakeRoomSocket(answer: SocketAnswer): FakeRoomSocket {
  const open = new Set<{ close: () => void }>();
  const fake: FakeRoomSocket = {
    frames: [],
    connections: [],
    closeAll: () => {
      for (const client of open) client.close();
      open.clear();
    },
  };
  served = { fake, answer, open };
  return fake;
}

type Listener = (event: { data: string; lastEventId: string }) => void;

export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  readonly url: string;
  readyState = 0;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, Listener[]>();

  constructor(url: string) {
    this.url = url;
    FakeEventSource.instances.push(this);
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close(): void {
    this.readyState = 2;
  }

  /** The server accepted the stream. */
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  emit(type: string, data: unknown, id = ''): void {
    for (const listener of this.listeners.get(type) ?? [])
      listener({ data: JSON.stringify(data), lastEventId: id });
  }

  static latest(urlPart: string): FakeEventSource | undefined {
    return [...FakeEventSource.instances]
      .reverse()
      .find((s) => s.url.includes(urlPart) && s.readyState !== 2);
  }
}

export function installEventSource(): void {
  FakeEventSource.instances = [];
  (globalThis as unknown as { EventSource: unknown }).EventSource = FakeEventSource;
}

export function removeEventSource(): void {
  delete (globalThis as unknown as { EventSource?: unknown }).EventSource;
  FakeEventSource.instances = [];
}
