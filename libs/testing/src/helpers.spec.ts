import { mongoBaseUrl, mongoUrlWithDb, uniqueName } from './helpers';
import { freePort, waitFor } from './node-only/net';

describe('uniqueName', () => {
  it('starts with the cleaned prefix and differs on every call', () => {
    const names = Array.from({ length: 200 }, () => uniqueName('Rooms Test.v2'));
    expect(new Set(names).size).toBe(200);
    for (const name of names) expect(name).toMatch(/^rooms-test-v2-[a-z0-9]+-[a-z0-9]+-[0-9a-f]{6}$/);
  });

  it('is valid as a MongoDB database name and a NATS stream or durable name', () => {
    const name = uniqueName('a/very $long.prefix with * and > that goes on and on');
    expect(name.length).toBeLessThanOrEqual(50);
    expect(name).toMatch(/^[a-z0-9-]+$/);
  });

  it('falls back to a placeholder for a prefix without usable characters', () => {
    expect(uniqueName('***')).toMatch(/^t-/);
  });
});

describe('mongo connection strings', () => {
  it('appends a database name to a base URL', () => {
    expect(mongoUrlWithDb('mongodb://127.0.0.1:27017', 'rooms')).toBe('mongodb://127.0.0.1:27017/rooms');
    expect(mongoUrlWithDb('mongodb://127.0.0.1:27017/', 'rooms')).toBe('mongodb://127.0.0.1:27017/rooms');
  });

  it('replaces an existing database name and keeps options', () => {
    expect(mongoUrlWithDb('mongodb://u:p@h1:1,h2:2/old?replicaSet=rs0', 'new')).toBe(
      'mongodb://u:p@h1:1,h2:2/new?replicaSet=rs0',
    );
  });

  it('strips the database name for the base URL', () => {
    expect(mongoBaseUrl('mongodb://127.0.0.1:27017/oasis-auth')).toBe('mongodb://127.0.0.1:27017');
    expect(mongoBaseUrl('mongodb+srv://db.example.test/app?retryWrites=true')).toBe(
      'mongodb+srv://db.example.test/?retryWrites=true',
    );
  });

  it('refuses names MongoDB would refuse and strings that are not MongoDB URLs', () => {
    expect(() => mongoUrlWithDb('mongodb://h:1', 'a.b')).toThrow(/Bad database name/);
    expect(() => mongoUrlWithDb('mongodb://h:1', '')).toThrow(/Bad database name/);
    expect(() => mongoBaseUrl('http://h:1')).toThrow(/Not a MongoDB connection string/);
  });
});

describe('waitFor', () => {
  it('returns the first truthy value, retrying through falsy results and errors', async () => {
    let calls = 0;
    const value = await waitFor(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('not yet');
        return calls >= 3 ? { calls } : undefined;
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ calls: 3 });
  });

  it('times out naming what it waited for and the last error', async () => {
    await expect(
      waitFor(
        async () => {
          throw new Error('connection refused');
        },
        { timeoutMs: 30, intervalMs: 5, what: 'the room to close' },
      ),
    ).rejects.toThrow(
      /Timed out after 30 ms waiting for the room to close \(last error: connection refused\)/,
    );
  });

  it('treats false as not yet', async () => {
    await expect(waitFor(async () => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /waiting for a condition$/,
    );
  });
});

describe('freePort', () => {
  it('never hands the same port out twice, though nothing listens on the first yet', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 500; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});
