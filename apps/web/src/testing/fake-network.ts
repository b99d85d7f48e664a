/**
 * The network boundary, faked for component tests: a routing fetch that answers JSON and records
 * every call, and an EventSource whose events a test pushes by hand.
 */
export interface FakeRequest {
  method: string;
  path: string;
  url: URL;
  body: unknown;
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
  fetch: jest.Mock;
}

function matcher(route: string): { method: string; test: (path: string) => boolean; exact: boolean } {
  const [method = 'GET', pattern = '/'] = route.split(' ');
  if (!pattern.includes(':')) return { method, exact: true, test: (path) => path === pattern };
  const regex = new RegExp(`^${pattern.replace(/:[^/]+/g, '[^/]+')}$`);
  return { method, exact: false, test: (path) => regex.test(path) };
}

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

  const fetchImpl = jest.fn(async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = { ...(init.headers as Record<string, string> | undefined) };
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const request: FakeRequest = { method, path: url.pathname, url, body, headers };
    calls.push(request);
    const handler = find(method, url.pathname);
    const answer: FakeResponse =
      handler === undefined
        ? { status: 404, body: { message: 'Not found.', code: 'NOT_FOUND' } }
        : typeof handler === 'function'
          ? await handler(request)
          : handler;
    if (answer === 'network-error') throw new TypeError('Failed to fetch');
    const status = answer.status ?? 200;
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    const answered = new Map(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      ok: status >= 200 && status < 300,
      status,
      headers: { get: (name: string) => answered.get(name.toLowerCase()) ?? null },
      text: async () => text,
    } as unknown as Response;
  });

  global.fetch = fetchImpl as unknown as typeof fetch;
  return {
    calls,
    callsTo: (route) => {
      const m = matcher(route);
      return calls.filter((c) => c.method === m.method && m.test(c.path));
    },
    on: (route, handler) => void table.set(route, handler),
    fetch: fetchImpl,
  };
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
