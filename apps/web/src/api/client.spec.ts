import { ApiError, apiPage, apiRequest } from './client';
import { getSession, setSession } from './session';

function answer(status: number, body?: unknown, headers: Record<string, string> = {}): jest.Mock {
  const fn = jest.fn(async () => ({
    ok: status >= 200 && status < 300,
    status,
    headers: new Headers(headers),
    text: async () => (body === undefined ? '' : JSON.stringify(body)),
  }));
  global.fetch = fn as unknown as typeof fetch;
  return fn;
}

const USER = { _id: 'u1', name: 'alice', token: 't0k' };

describe('apiRequest', () => {
  it('sends JSON and returns the parsed answer', async () => {
    const fetchMock = answer(200, { ok: true });
    await expect(apiRequest('/api/x', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/x');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"a":1}');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it('adds the bearer token when asked, and refuses locally without a session', async () => {
    const fetchMock = answer(200, {});
    await expect(apiRequest('/api/x', { auth: true })).rejects.toMatchObject({ status: 401 });
    expect(fetchMock).not.toHaveBeenCalled();
    setSession(USER);
    await apiRequest('/api/x', { auth: true });
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer t0k');
  });

  it("turns an error answer into an ApiError with the server's message and code", async () => {
    answer(409, { message: 'oops, user already exists', code: 'CONFLICT', details: { email: 'taken' } });
    const error = (await apiRequest('/api/x').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', message: 'oops, user already exists' });
    expect(error.details).toEqual({ email: 'taken' });
  });

  it('uses a generic message when the body has none', async () => {
    answer(502);
    await expect(apiRequest('/api/x')).rejects.toMatchObject({
      status: 502,
      message: 'Request failed with status code 502',
      code: 'HTTP_502',
    });
  });

  it("reports a network failure as status 0, 'Network Error'", async () => {
    global.fetch = jest.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const error = (await apiRequest('/api/x').catch((e: unknown) => e)) as ApiError;
    expect(error.isNetwork).toBe(true);
    expect(error.message).toBe('Network Error');
  });

  it('ends the session when the server refuses its token', async () => {
    setSession(USER);
    answer(401, { message: 'Your session is not valid. Please log in again.', code: 'UNAUTHORIZED' });
    await expect(apiRequest('/api/x', { auth: true })).rejects.toMatchObject({ status: 401 });
    expect(getSession()).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
  });

  it('keeps the session when the token is valid but its login too old for the change (reauth_required)', async () => {
    setSession(USER);
    answer(401, { message: 'Please enter your password to continue.', code: 'reauth_required' });
    await expect(apiRequest('/api/x', { method: 'PATCH', auth: true })).rejects.toMatchObject({
      status: 401,
      code: 'reauth_required',
    });
    expect(getSession()).toEqual(USER);
    expect(JSON.parse(window.localStorage.getItem('user') ?? 'null')).toEqual(USER);
  });
});

describe('apiPage', () => {
  it('reads the number of items in all pages from X-Total-Count', async () => {
    answer(200, [{ id: 1 }, { id: 2 }], { 'X-Total-Count': '45' });
    await expect(apiPage('/api/list?page=1')).resolves.toEqual({ items: [{ id: 1 }, { id: 2 }], total: 45 });
  });

  it('counts the items of the page when the header is missing or not a count', async () => {
    answer(200, [{ id: 1 }, { id: 2 }]);
    await expect(apiPage('/api/list')).resolves.toEqual({ items: [{ id: 1 }, { id: 2 }], total: 2 });
    answer(200, [{ id: 1 }], { 'X-Total-Count': 'many' });
    await expect(apiPage('/api/list')).resolves.toMatchObject({ total: 1 });
    answer(200, [{ id: 1 }], { 'X-Total-Count': '' });
    await expect(apiPage('/api/list')).resolves.toMatchObject({ total: 1 });
  });
});
