// Tests of the Compose runner and of compose.yaml itself (node --test, run by `nx run containers:test`).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { COMPOSE_FILE, interpolate, loadCompose, publishFor, runArgs, startOrder } from './compose.ts';
import { ensureSecrets } from './stack.ts';

/** The Compose specification's schema, from the compose-go module (the Go module proxy). */
const COMPOSE_GO = 'github.com/compose-spec/compose-go/v2@v2.16.2';

function composeSchema(): object {
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', COMPOSE_GO], { encoding: 'utf8' }),
  ) as {
    Dir: string;
  };
  return JSON.parse(readFileSync(path.join(info.Dir, 'schema', 'compose-spec.json'), 'utf8')) as object;
}

describe('compose.yaml', () => {
  it('validates against the Compose specification schema', () => {
    const require = createRequire(import.meta.url);
    const Ajv2020 = require('ajv/dist/2020').default as new (options: object) => {
      compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] };
    };
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(composeSchema());
    const valid = validate(loadCompose(COMPOSE_FILE, {}));
    assert.equal(valid, true, JSON.stringify(validate.errors, null, 2));
  });

  it('runs two replicas of every service behind the web entry point, each gateway on its own port', () => {
    const compose = loadCompose(COMPOSE_FILE, {});
    for (const service of ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments']) {
      assert.equal(compose.services[service]?.deploy?.replicas, 2, service);
    }
    assert.deepEqual(compose.services['web']?.ports, ['127.0.0.1:8080:8080']);
    const gateway = runArgs(compose, 'gateway', 2, 'hash');
    assert.ok(gateway.includes('127.0.0.1:8082:8080'), gateway.join(' '));
    for (const [name, spec] of Object.entries(compose.services)) {
      assert.equal(spec.read_only, true, `${name} has a read-only root`);
      assert.ok(spec.user && Number(spec.user.split(':')[0]) >= 10000, `${name} runs as a high UID`);
      assert.equal(spec.restart, 'unless-stopped', `${name} restarts when it dies`);
    }
  });

  it('starts each service after what it depends on', () => {
    const order = startOrder(loadCompose(COMPOSE_FILE, {}));
    assert.ok(order.indexOf('nats') < order.indexOf('rooms'));
    assert.ok(order.indexOf('gateway') < order.indexOf('web'));
  });
});

describe("compose.yaml's trust in X-Forwarded-For", () => {
  const compose = loadCompose(COMPOSE_FILE, {});
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
    assert.ok(
      !inside(web, ipam?.ip_range),
      `${web} is outside the range others are given, ${ipam?.ip_range}`,
    );
    // The host's connections to a published port come from the subnet's first address.
    assert.notEqual(octets(web)[3], 1);
    assert.ok(runArgs(compose, 'web', 1, 'hash').join(' ').includes(`--ip ${web}`));
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
    const compose = loadCompose(COMPOSE_FILE, {});
    for (const secret of Object.values(compose.secrets ?? {}))
      secret.file = path.join(dir, 'secrets', path.basename(secret.file));
    ensureSecrets(compose);
    const secretFile = (name: string) => must(compose.secrets?.[name], `the secret ${name}`).file;
    // The container's layout: nats.conf as the config, the passwords as the secret nats_passwords.
    const nats = must(compose.services['nats'], 'the nats service');
    const config = must(
      nats.configs?.find((c) => c.source === 'nats-config'),
      'the nats-config mount',
    );
    const root = (p: string) => path.join(dir, 'root', p);
    mkdirSync(path.dirname(root(config.target)), { recursive: true });
    copyFileSync(
      path.resolve(
        path.dirname(COMPOSE_FILE),
        must(compose.configs?.['nats-config'], 'the nats-config file').file,
      ),
      root(config.target),
    );
    for (const name of nats.secrets ?? []) {
      mkdirSync(root('/run/secrets'), { recursive: true });
      copyFileSync(secretFile(name), root(`/run/secrets/${name}`));
    }
    const port = await freePort();
    const args = (nats.command ?? []).map((arg) =>
      arg.replace(config.target, root(config.target)).replace('=/data', `=${root('/data')}`),
    );
    const server = spawn(path.join(path.dirname(COMPOSE_FILE), '.tools', 'bin', 'nats-server'), [
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
      assert.ok(spec.secrets?.includes(secret), `${user} mounts its password ${secret}`);
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

describe('the runner', () => {
  it('interpolates variables as Compose does', () => {
    assert.equal(interpolate('${A:-x} ${B-y} $${C}', { A: '', B: '' }), 'x  ${C}');
    assert.equal(interpolate('${A}', { A: 'set' }), 'set');
    assert.throws(() => interpolate('${A:?needed}', {}), /A is required: needed/);
  });

  it('gives each replica one port of a host range, and keeps a single port as it is', () => {
    assert.equal(publishFor('127.0.0.1:8081-8082:8080', 1), '127.0.0.1:8081:8080');
    assert.equal(publishFor('127.0.0.1:8081-8082:8080', 2), '127.0.0.1:8082:8080');
    assert.equal(publishFor('8080:80', 1), '8080:80');
    assert.throws(() => publishFor('127.0.0.1:8081-8082:8080', 3), /no port for replica 3/);
  });

  it('labels every container as Compose does, so tools find a replica of any service', () => {
    const args = runArgs(loadCompose(COMPOSE_FILE, {}), 'rooms', 2, 'abc').join(' ');
    assert.match(args, /--label com\.docker\.compose\.project=oasis198/);
    assert.match(args, /--label com\.docker\.compose\.service=rooms/);
    assert.match(args, /--label com\.docker\.compose\.container-number=2/);
    assert.match(args, /--name oasis198-rooms-2/);
  });
});
