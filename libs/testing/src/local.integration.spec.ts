import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startLocalInfra } from './local';

const answers = (url: string | undefined) =>
  new Promise<boolean>((resolve) => {
    if (!url) throw new Error('no URL');
    const { hostname, port } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const tempDirs = () => readdirSync(os.tmpdir()).filter((d) => d.startsWith('oasis-test-infra-'));

// Local mode (the one CI and this machine use without Docker): servers from .tools/bin on free ports.
describe('local test infrastructure', () => {
  it('starts NATS and FerretDB on free ports and stop() removes them with their data', async () => {
    const before = new Set(tempDirs());
    const infra = await startLocalInfra({ nats: true, mongo: true });
    const created = tempDirs().filter((d) => !before.has(d));
    expect(created).toHaveLength(1);
    expect(infra.natsUrl).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(infra.mongoUrl).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+$/);
    expect(infra.natsUrl).not.toBe('nats://127.0.0.1:4222');
    expect(await answers(infra.natsUrl)).toBe(true);
    expect(await answers(infra.mongoUrl)).toBe(true);

    await Promise.all([infra.stop(), infra.stop()]);

    expect(await answers(infra.natsUrl)).toBe(false);
    expect(await answers(infra.mongoUrl)).toBe(false);
    expect(existsSync(path.join(os.tmpdir(), String(created[0])))).toBe(false);
  });

  it('starts only what is asked for', async () => {
    const infra = await startLocalInfra({ nats: false, mongo: true });
    try {
      expect(infra.natsUrl).toBeUndefined();
      expect(await answers(infra.mongoUrl)).toBe(true);
    } finally {
      await infra.stop();
    }
  });
});
