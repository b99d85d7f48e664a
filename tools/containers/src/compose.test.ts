// Tests of compose.yaml as Docker Compose resolves it (node --test, run by `nx run containers:test`).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { loadCompose } from './compose.ts';
import { ensureSecrets } from './stack.ts';
import { ROOT } from './exec.ts';

type Mount = { source: string; target: string };
/** The parts of `docker compose config` these tests read (Compose validates the file against its schema). */
interface Resolved {
  name: string;
  services: Record<
    string,
    {
      image: string;
      command?: string[] | null;
      environment?: Record<string, string | null>;
      ports?: Array<{ host_ip?: string; target: number; published?: string }>;
      read_only?: boolean;
      user?: string;
      restart?: string;
      depends_on?: Record<string, unknown>;
      deploy?: { replicas?: number };
      configs?: Mount[];
      secrets?: Mount[];
      volumes?: Array<{ type: string; source: string; target: string }>;
      networks?: { default?: { ipv4_address?: string } | null };
    }
  >;
  configs?: Record<string, { file: string }>;
  secrets?: Record<string, { file: string }>;
  networks?: { default?: { ipam?: { config?: Array<{ subnet?: string; ip_range?: string }> } } };
}
const resolved = () => loadCompose() as unknown as Resolved;
const NATS_NODES = ['nats-1', 'nats-2', 'nats-3'];

describe('compose.yaml', () => {
  it('runs two replicas of every service behind the web entry point, each gateway on a port of its own', () => {
    const compose = resolved();
    for (const service of ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments']) {
      assert.equal(compose.services[service]?.deploy?.replicas, 2, service);
    }
    assert.deepEqual(
      compose.services['web']?.ports?.map((p) => `${p.host_ip}:${p.published}:${p.target}`),
      ['127.0.0.1:8080:8080'],
    );
    assert.deepEqual(
      compose.services['gateway']?.ports?.map((p) => `${p.host_ip}:${p.published ?? ''}:${p.target}`),
      ['127.0.0.1::8080'],
    );
    for (const [name, spec] of Object.entries(compose.services)) {
      assert.equal(spec.read_only, true, `${name} has a read-only root`);
      assert.ok(spec.user && Number(spec.user.split(':')[0]) >= 10000, `${name} runs as a high UID`);
      assert.equal(spec.restart, 'unless-stopped', `${name} restarts when it dies`);
    }
  });

  it('runs NATS as a three-node cluster, each node with its own store, and R3 streams', () => {
    const compose = resolved();
    const stores = new Set<string>();
    for (const node of NATS_NODES) {
      const spec = compose.services[node];
      assert.ok(spec, `${node} is a service`);
      const command = (spec.command ?? []).join(' ');
      assert.match(command, /--cluster_name=oasis198/);
      assert.match(command, new RegExp(`--server_name=oasis198-${node}\\b`));
      for (const peer of NATS_NODES) assert.match(command, new RegExp(`nats://${peer}:6222`));
      const store = spec.volumes?.find((v) => v.target === '/data')?.source;
      assert.ok(store && !stores.has(store), `${node} has a store of its own`);
      stores.add(store);
    }
    for (const [name, spec] of Object.entries(compose.services)) {
      if (!spec.environment?.['NATS_URL']) continue;
      assert.deepEqual(
        spec.environment['NATS_URL'].split(','),
        NATS_NODES.map((node) => `nats://${node}:4222`),
        `${name} knows every node`,
      );
      assert.equal(spec.environment['NATS_STREAM_REPLICAS'], '3', name);
      for (const node of NATS_NODES) assert.ok(spec.depends_on?.[node], `${name} starts after ${node}`);
    }
  });
});

describe("compose.yaml's trust in X-Forwarded-For", () => {
  const compose = resolved();
  const web = compose.services['web']?.networks?.default?.ipv4_address;
  const ipam = compose.networks?.default?.ipam?.config?.[0];
  const octets = (ip = '') => (ip.split('/')[0] ?? '').split('.').map(Number);
  const inside = (ip: string, cidr = '') => {
    const bits = Number(cidr.split('/')[1]);
    const n = (parts: number[]) => parts.reduce((a, b) => a * 256 + b, 0);
    const size = 2 ** (32 - bits);
    return Math.floor(n(octets(ip)) / size) === Math.floor(n(octets(cidr)) / size);
  };

  it("the gateways trust exactly the web container's fixed address, which no other container gets", () => {
    assert.ok(web, 'web has a fixed address');
    assert.equal(compose.services['gateway']?.environment?.['TRUST_PROXY'], web);
    assert.ok(inside(web, ipam?.subnet), `${web} is in the network's subnet ${ipam?.subnet}`);
    // Others are given addresses from the bottom of the subnet, far below the web container's.
    assert.ok((octets(web)[3] ?? 0) >= 128, `${web} is far above the addresses others are given`);
    // The host's connections to a published port come from the subnet's first address.
    assert.notEqual(octets(web)[3], 1);
  });
});

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`compose.yaml has no ${what}`);
  return value;
}

/** A free TCP port on 127.0.0.1. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe("compose.yaml's NATS, run by the real nats-server with its configuration and secrets", () => {
  it('refuses a client without credentials or with a wrong password, and lets each service in as its user', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-nats-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // The secret files in a scratch folder, written as `stack.ts secrets` writes them.
    const compose = resolved();
    for (const secret of Object.values(compose.secrets ?? {}))
      secret.file = path.join(dir, 'secrets', path.basename(secret.file));
    ensureSecrets(compose as never);
    const secretFile = (name: string) => must(compose.secrets?.[name], `the secret ${name}`).file;
    // The container's layout: nats.conf as the config, the passwords as the secret nats_passwords.
    const nats = must(compose.services['nats-1'], 'the nats-1 service');
    const config = must(
      nats.configs?.find((c) => c.source === 'nats-config'),
      'the nats-config mount',
    );
    const root = (p: string) => path.join(dir, 'root', p);
    mkdirSync(path.dirname(root(config.target)), { recursive: true });
    copyFileSync(must(compose.configs?.['nats-config'], 'the nats-config file').file, root(config.target));
    for (const { source } of nats.secrets ?? []) {
      mkdirSync(root('/run/secrets'), { recursive: true });
      copyFileSync(secretFile(source), root(`/run/secrets/${source}`));
    }
    const port = await freePort();
    // One node alone: its cluster settings (routes to the others) left out.
    const args = (nats.command ?? [])
      .filter((arg) => !/^--(cluster|cluster_name|routes)=/.test(arg))
      .map((arg) => arg.replace(config.target, root(config.target)).replace('=/data', `=${root('/data')}`));
    const server = spawn(path.join(ROOT, '.tools', 'bin', 'nats-server'), [
      ...args,
      '--addr=127.0.0.1',
      `--port=${port}`,
      '--http_port=0',
    ]);
    let log = '';
    server.stderr.on('data', (d: Buffer) => (log += d.toString()));
    t.after(() => server.kill());
    const servers = `nats://127.0.0.1:${port}`;
    const attempt = async (options: { user?: string; pass?: string }) => {
      for (let i = 0; ; i++) {
        try {
          const nc: NatsConnection = await connect({ servers, ...options, reconnect: false });
          await nc.close();
          return 'connected';
        } catch (error) {
          const message = (error as Error).message;
          if (!/ECONNREFUSED|CONNECTION_REFUSED/i.test(message) || i > 100) return message;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };

    assert.match(await attempt({}), /authorization violation/i, log);
    const users = Object.values(compose.services).filter((s) => s.environment?.['NATS_USER']);
    assert.deepEqual(users.map((s) => s.environment?.['NATS_USER']).sort(), [
      'auth',
      'game-timer',
      'gateway',
      'rewards',
      'rooms',
      'tournaments',
    ]);
    const passwords = new Map<string, string>();
    for (const spec of users) {
      const user = String(spec.environment?.['NATS_USER']);
      const secret = path.basename(String(spec.environment?.['NATS_PASSWORD_FILE']));
      assert.ok(
        spec.secrets?.some((s) => s.source === secret),
        `${user} mounts its password ${secret}`,
      );
      passwords.set(user, readFileSync(secretFile(secret), 'utf8').trim());
      assert.equal(await attempt({ user, pass: passwords.get(user) }), 'connected', `${user}: ${log}`);
    }
    assert.match(
      await attempt({ user: 'auth', pass: passwords.get('rooms') }),
      /authorization violation/i,
      "rooms' password is not auth's",
    );
    // And a user may only do what its service does: rooms cannot call auth.delete.
    const rooms = await connect({ servers, user: 'rooms', pass: passwords.get('rooms'), reconnect: false });
    t.after(() => rooms.close());
    await assert.rejects(rooms.request('auth.delete', '{}', { timeout: 2000 }), /permissions violation/i);
  });
});
