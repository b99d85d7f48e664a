// Tests of the Compose runner and of compose.yaml itself (node --test, run by `nx run containers:test`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { COMPOSE_FILE, interpolate, loadCompose, publishFor, runArgs, startOrder } from './compose.ts';

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
    for (const service of ['gateway', 'auth', 'rewards', 'rooms', 'game-timer']) {
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
