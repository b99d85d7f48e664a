import { contentSecurityPolicy } from '@oasis198/contracts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newAccount, useAccountsStack } from './testing/accounts-stack';

// The gateway's HTTP edge as a browser and a proxy see it: the security headers of the web app it
// serves in the local stack, and whose X-Forwarded-For its per-address limits believe.

/** A built web app: index.html and one hashed asset. */
const webDist = mkdtempSync(path.join(os.tmpdir(), 'oasis-web-dist-'));
mkdirSync(path.join(webDist, 'assets'));
writeFileSync(
  path.join(webDist, 'index.html'),
  '<!doctype html><html><head><script type="module" src="/assets/index-abc.js"></script></head><body><div id="root"></div></body></html>',
);
writeFileSync(path.join(webDist, 'assets', 'index-abc.js'), 'console.log("app");');
afterAll(() => rmSync(webDist, { recursive: true, force: true }));

const REGISTRATIONS_PER_ADDRESS = 3;

/** A policy's directives, however they are spaced (helmet joins them with a bare ";"). */
const directives = (policy: string | null) =>
  (policy ?? '')
    .split(';')
    .map((directive) => directive.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
const STRICT = directives(contentSecurityPolicy());

describe('the gateway serving the web app (local stack), behind no proxy it trusts', () => {
  // 192.0.2.1 is no peer of this test: every request comes straight from 127.0.0.1, untrusted.
  const stack = useAccountsStack({
    WEB_DIST_DIR: webDist,
    CORS_ORIGINS: 'https://play.example.com',
    TRUST_PROXY: '192.0.2.1',
    REGISTER_MAX_PER_WINDOW: String(REGISTRATIONS_PER_ADDRESS),
  });

  it('sends the strict Content-Security-Policy and HSTS with index.html, for every route of the app', async () => {
    for (const route of ['/', '/quick-battle/rooms', '/profile']) {
      const res = await stack().call<string>('GET', route);
      expect(res.status).toBe(200);
      expect(res.body).toContain('<div id="root">');
      expect(directives(res.headers.get('content-security-policy'))).toEqual(STRICT);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    }
    expect(STRICT).toContain("script-src 'self'");
    expect(STRICT.join(';')).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('sends the same policy with the assets and the API, not with the API documentation', async () => {
    const asset = await stack().call<string>('GET', '/assets/index-abc.js');
    expect(asset.status).toBe(200);
    expect(directives(asset.headers.get('content-security-policy'))).toEqual(STRICT);
    const api = await stack().call('GET', '/api/rewards/000000000000000000000000');
    expect(api.status).toBe(404);
    // Except the API documentation page, whose Swagger UI needs inline styles and data: images.
    const docs = await stack().call<string>('GET', '/api/docs');
    expect(docs.status).toBe(200);
    expect(directives(docs.headers.get('content-security-policy'))).toContain("img-src 'self' data:");
    expect(directives(api.headers.get('content-security-policy'))).toEqual(STRICT);
  });

  it('keeps an idle connection open longer than a proxy in front keeps its own (65 s)', async () => {
    const res = await stack().call('GET', '/api/rooms');
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('caches the assets for an hour, never index.html, and no API answer; API paths stay JSON', async () => {
    const asset = await stack().call<string>('GET', '/assets/index-abc.js');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=3600');
    for (const route of ['/', '/quick-battle/rooms', '/assets/missing.js']) {
      const page = await stack().call<string>('GET', route);
      expect([route, page.status, page.headers.get('cache-control')]).toEqual([route, 200, 'no-cache']);
      expect(page.body).toContain('<div id="root">');
      expect(page.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    // API answers (tokens, players' data) are never stored, refusals included.
    const refused = await stack().call('POST', '/api/users/login', { rawBody: '{' });
    expect([refused.status, refused.headers.get('cache-control')]).toEqual([400, 'no-store']);
    expect((await stack().call('GET', '/api/rooms')).headers.get('cache-control')).toBe('no-store');
    const head = await stack().call('HEAD', '/profile');
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    // Only GET and HEAD are the app's; anything under /api, /health or /metrics is the API's.
    for (const [method, path] of [
      ['POST', '/profile'],
      ['GET', '/api/nothing-here'],
      ['GET', '/api'],
      ['GET', '/health/nothing'],
      ['GET', '/metrics/nothing'],
    ] as const) {
      const res = await stack().call(method, path);
      expect([method, path, res.status, res.body]).toEqual([
        method,
        path,
        404,
        expect.objectContaining({ code: 'NOT_FOUND' }),
      ]);
    }
    expect((await stack().call('GET', '/health/live')).status).toBe(200);
  });

  it('answers a body that is not JSON, does not decompress or is not UTF-8 with the envelope, also while it serves the web app', async () => {
    const res = await stack().call('POST', '/api/users/login', { rawBody: '{"email": "a@b.co",' });
    expect([res.status, res.body]).toEqual([
      400,
      { message: 'The request body is not valid JSON.', code: 'VALIDATION' },
    ]);
    // Bodies the parser refuses before reading JSON: each a 400 that says why, never a 500.
    const login = (headers: Record<string, string>) =>
      stack().call('POST', '/api/users/login', { rawBody: '{"email": "a@b.co"}', headers });
    for (const [headers, message] of [
      [{ 'content-encoding': 'gzip' }, 'The request body could not be decompressed.'],
      [{ 'content-encoding': 'br' }, 'The request body could not be decompressed.'],
      [
        { 'content-encoding': 'zip' },
        'The request body must be sent uncompressed or with Content-Encoding gzip, deflate or br.',
      ],
      [{ 'content-type': 'application/json; charset=latin1' }, 'The request body must be JSON in UTF-8.'],
    ] as const) {
      const refused = await login(headers);
      expect([headers, refused.status, refused.body]).toEqual([
        headers,
        400,
        { message, code: 'VALIDATION' },
      ]);
    }
    // A path Express cannot decode is the client's mistake too.
    const odd = await stack().call('GET', '/api/rooms/%E0%A4%A');
    expect([odd.status, odd.body]).toEqual([
      400,
      { message: "Failed to decode param '%E0%A4%A'", code: 'VALIDATION' },
    ]);
  });

  it('lets a cross-origin client (CORS_ORIGINS) read the X-Total-Count of a list', async () => {
    const res = await stack().call('GET', '/api/rewards/', {
      headers: { origin: 'https://play.example.com' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://play.example.com');
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Total-Count');
    expect(res.headers.get('x-total-count')).toMatch(/^\d+$/);
  });

  it('answers 405 with Allow for a method the API does not declare on a path it has, OPTIONS with Allow; 404 for a path it has not', async () => {
    const id = '000000000000000000000000';
    const put = await stack().call('PUT', `/api/rooms/${id}`);
    expect(put.status).toBe(405);
    expect(put.body).toEqual({
      message: 'PUT is not allowed here. Allowed: GET, HEAD, OPTIONS.',
      code: 'METHOD_NOT_ALLOWED',
    });
    expect(put.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const post = await stack().call('POST', `/api/rooms/${id}/edit`, { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('PATCH, OPTIONS');
    expect((await stack().call('DELETE', '/api/users/')).status).toBe(405);
    // Declared methods, a preflight and unknown paths go on as before.
    expect((await stack().call('PATCH', `/api/rooms/${id}/edit`, { body: {} })).status).toBe(401);
    const preflight = await stack().call('OPTIONS', `/api/rooms/${id}/edit`, {
      headers: { origin: 'https://play.example.com', 'access-control-request-method': 'PATCH' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://play.example.com');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,POST,PATCH,DELETE');
    // A plain OPTIONS says what the path takes.
    const options = await stack().call('OPTIONS', '/api/rooms/');
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    // A concrete path is not read as a templated one: play-now is no room id.
    const playNow = await stack().call('GET', '/api/rooms/play-now');
    expect(playNow.status).toBe(405);
    expect(playNow.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await stack().call('PUT', '/api/nothing-here')).status).toBe(404);
    expect((await stack().call('OPTIONS', '/api/nothing-here')).status).toBe(404);
  });

  it('ignores X-Forwarded-For from a peer it does not trust: a client cannot pick its rate-limit key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= REGISTRATIONS_PER_ADDRESS; i++) {
      const res = await stack().call('POST', '/api/users/', {
        body: newAccount('x'),
        headers: { 'x-forwarded-for': `203.0.113.${10 + i}` },
      });
      statuses.push(res.status);
    }
    // Every forged address counted as 127.0.0.1, the peer itself.
    expect(statuses).toEqual([...Array(REGISTRATIONS_PER_ADDRESS).fill(201), 429]);
    const plain = await stack().call('POST', '/api/users/', { body: newAccount('x') });
    expect(plain.status).toBe(429);
  });
});

describe('the gateway behind one trusted hop (the charts: TRUST_PROXY=1, the ingress controller)', () => {
  const stack = useAccountsStack({
    TRUST_PROXY: '1',
    REGISTER_MAX_PER_WINDOW: String(REGISTRATIONS_PER_ADDRESS),
  });
  const register = (forwardedFor: string) =>
    stack().call('POST', '/api/users/', {
      body: newAccount('h'),
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('counts the address the ingress saw, whatever the client wrote before it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= REGISTRATIONS_PER_ADDRESS; i++) {
      // The client forged the first entry; the ingress appended the address it saw.
      statuses.push((await register(`198.51.100.${i}, 203.0.113.7`)).status);
    }
    expect(statuses).toEqual([...Array(REGISTRATIONS_PER_ADDRESS).fill(201), 429]);
    // Another client behind the same ingress has its own count.
    expect((await register('203.0.113.8')).status).toBe(201);
  });
});
