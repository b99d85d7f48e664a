// The umbrella chart's NATS configuration, run by the real nats-server: each service's NATS user
// can do what that service does (through service-kit's own connections) and nothing else.
import { Logger } from '@nestjs/common';
import { ServerNats } from '@nestjs/microservices';
import {
  Consumers,
  consumersOf,
  RetiredConsumers,
  type EventEnvelope,
  EventTypes,
  KvBuckets,
  NATS_USERS,
  type NatsUser,
  natsPermissions,
  Requests,
  RoomLogSubjects,
  roomPushHeaders,
  RoomPushSubjects,
  Streams,
  TimerSubjects,
} from '@oasis198/contracts';
import {
  baseEnv,
  createLogger,
  JetStreamService,
  KvStore,
  loadConfig,
  makeEvent,
  type NatsEndpoint,
  natsEndpoint,
  RpcClient,
} from '@oasis198/service-kit';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  AckPolicy,
  connect,
  DiscardPolicy,
  headers as natsHeaders,
  type NatsConnection,
  RetentionPolicy,
  type StreamConfig,
  StringCodec,
} from 'nats';
import {
  all,
  helmTemplate,
  type K8sObject,
  must,
  one,
  podSpec,
  ROOT,
  secretFiles,
  secretVariables,
} from './k8s';

const NATS_SERVER = path.join(ROOT, '.tools', 'bin', 'nats-server');
// The NestJS NATS client logs every refusal this suite provokes on purpose.
Logger.overrideLogger(false);
const logger = createLogger('nats-users-test', 'silent');
const codec = StringCodec();

/**
 * The in-cluster NATS of ci/in-cluster-deps.yaml as one node (its nats.conf, password script and
 * Secrets): a single nats-server started from the three-node configuration has no JetStream quorum.
 */
function renderNats() {
  const objects = helmTemplate('oasis198', {
    values: ['ci/in-cluster-deps.yaml'],
    set: ['nats.replicas=1', 'global.nats.streamReplicas=1'],
  });
  const config = one(objects, 'ConfigMap', 'oasis198-nats').data ?? {};
  const pod = podSpec(one(objects, 'StatefulSet', 'oasis198-nats'));
  const init = must(pod.initContainers?.[0], 'the init container that writes the passwords');
  return { objects, config, init, initFiles: secretFiles(pod, init) };
}

/** A Secret's value, as the pod sees it. */
function secretValue(objects: K8sObject[], name: string, key: string): string {
  const data = one(objects, 'Secret', name).data ?? {};
  return Buffer.from(must(data[key], `${name}/${key}`), 'base64').toString();
}

/**
 * The client port of a nats-server started with `port: -1` (it picks a free one itself, so no
 * port can be taken between choosing and binding), once it says it is ready.
 */
async function readyPort(child: ChildProcess, log: () => string): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited:\n${log()}`);
    const port = /Listening for client connections on \S+:(\d+)/.exec(log())?.[1];
    if (port && log().includes('Server is ready')) return Number(port);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not get ready:\n${log()}`);
}

/** Errors the server sent this connection for a publish or subscribe it was not allowed. */
function permissionViolations(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      const context = (status as { permissionContext?: { operation: string; subject: string } })
        .permissionContext;
      if (context) seen.push(`${context.operation} ${context.subject}`);
    }
  })();
  return seen;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** nats.js headers holding these values. */
function natsHeadersOf(values: Record<string, string>) {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(values)) h.set(name, value);
  return h;
}

describe('NATS users of the umbrella chart, on a real nats-server', () => {
  const rendered = renderNats();
  let dir = '';
  let server: ChildProcess | undefined;
  let url = '';
  const endpoints = {} as Record<NatsUser, NatsEndpoint>;
  const closers: (() => Promise<unknown>)[] = [];

  const track = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    closers.push(() => thing.close());
    return thing;
  };
  /** A plain nats.js connection as a service (the options service-kit passes to nats.js). */
  const raw = async (user: NatsUser) => {
    const nc = await connect({ ...endpoints[user], reconnect: false, timeout: 2000 });
    closers.push(() => nc.close());
    return nc;
  };
  const jetstream = async (user: NatsUser) => {
    const js = new JetStreamService({ ...endpoints[user], name: `test-${user}` }, logger);
    await js.connect();
    return track(js);
  };
  const rpc = async (user: NatsUser, timeoutMs = 2000) => {
    const client = new RpcClient(endpoints[user], `test-${user}`, timeoutMs, logger);
    await client.connect();
    return track(client);
  };
  /** A NestJS NATS transport serving these subjects, as createService starts it. */
  const serve = async (
    user: NatsUser,
    queue: string,
    handlers: Record<string, (data: unknown) => unknown>,
  ) => {
    const transport = new ServerNats({ ...endpoints[user], queue, name: `test-${user}-rpc` });
    for (const [pattern, handler] of Object.entries(handlers)) {
      transport.addHandler(pattern, async (data: unknown) => handler(data));
    }
    await new Promise<void>((resolve, reject) =>
      transport.listen((error?: unknown) => (error ? reject(error) : resolve())),
    );
    return track(transport);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-nats-users-'));
    mkdirSync(path.join(dir, 'config'));
    mkdirSync(path.join(dir, 'auth'));
    mkdirSync(path.join(dir, 'data'));
    const renderedConf = must(rendered.config['nats.conf'], 'nats.conf');
    expect(renderedConf).toMatch(/^port: 4222$/m);
    const conf = renderedConf
      .replace(/^port: 4222$/m, 'port: -1')
      .replace(/^http_port: 8222$/m, 'http_port: -1')
      .replace(/store_dir: \S+/, `store_dir: ${JSON.stringify(path.join(dir, 'data'))}`);
    writeFileSync(path.join(dir, 'config', 'nats.conf'), conf);
    const script = must(rendered.config['write-passwords.sh'], 'write-passwords.sh');
    writeFileSync(path.join(dir, 'config', 'write-passwords.sh'), script);

    // The init container's work: the services' Secrets as files (where its command reads them),
    // its script.
    const command = must(rendered.init.command, 'the init command');
    expect(command.slice(0, 2)).toEqual(['sh', '/etc/nats/config/write-passwords.sh']);
    const secretsDir = must(command[2], 'the folder of the password files');
    const output = must(command[3], 'the file the passwords go to');
    expect(output).toBe('/etc/nats/auth/passwords.conf');
    const local = (file: string) => path.join(dir, path.posix.relative('/etc/nats', file));
    for (const [file, ref] of rendered.initFiles) {
      expect(path.posix.dirname(file)).toBe(secretsDir);
      mkdirSync(path.dirname(local(file)), { recursive: true });
      writeFileSync(local(file), secretValue(rendered.objects, ref.secret, ref.key));
    }
    execFileSync('sh', [path.join(dir, 'config', 'write-passwords.sh'), local(secretsDir), local(output)], {
      env: { PATH: process.env['PATH'] },
    });

    let log = '';
    server = spawn(NATS_SERVER, ['-c', path.join(dir, 'config', 'nats.conf')], {
      env: { ...process.env, SERVER_NAME: 'oasis198-nats-0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (d) => (log += d));
    server.stderr?.on('data', (d) => (log += d));
    url = `nats://127.0.0.1:${await readyPort(server, () => log)}`;

    // Each service's credentials, read the way the service reads them.
    for (const user of NATS_USERS) {
      const configMap = one(rendered.objects, 'ConfigMap', `oasis198-${user}`).data ?? {};
      const deployment = one(rendered.objects, 'Deployment', `oasis198-${user}`);
      const pod = podSpec(deployment);
      const container = must(pod.containers[0], `${user}'s container`);
      const password = must(secretVariables(pod, container)['NATS_PASSWORD'], `${user}'s NATS_PASSWORD file`);
      // The file the Secret's key becomes, at the path NATS_PASSWORD_FILE names.
      const file = path.join(dir, `${user}-NATS_PASSWORD`);
      writeFileSync(file, secretValue(rendered.objects, password.secret, password.key));
      const passwordFile = must(
        container.env?.find((e) => e.name === 'NATS_PASSWORD_FILE'),
        'NATS_PASSWORD_FILE',
      );
      expect(passwordFile.value).toMatch(/^\/.+\/NATS_PASSWORD$/);
      const config = loadConfig(baseEnv, {
        NODE_ENV: 'test',
        NATS_URL: url,
        NATS_USER: configMap['NATS_USER'],
        NATS_PASSWORD_FILE: file,
      });
      expect(config.NATS_USER).toBe(user);
      endpoints[user] = natsEndpoint(config);
    }
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    server?.kill('SIGTERM');
    if (server && server.exitCode === null) await new Promise((r) => server?.once('exit', r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the users and permissions of the three-node cluster: only its cluster block differs', () => {
    const objects = helmTemplate('oasis198', { values: ['ci/in-cluster-deps.yaml'] });
    const clustered = must(one(objects, 'ConfigMap', 'oasis198-nats').data?.['nats.conf'], 'nats.conf');
    const cluster = /^cluster \{\n[\s\S]*?^\}\n/m;
    expect(clustered).toMatch(cluster);
    expect(clustered.replace(cluster, '')).toBe(rendered.config['nats.conf']);
  });

  it('renders one user per service with the permissions of libs/contracts, and no password', () => {
    const conf = must(rendered.config['nats.conf'], 'nats.conf');
    for (const user of NATS_USERS) {
      expect(conf).toContain(`user: "${user}"`);
      for (const subject of natsPermissions[user].publish) expect(conf).toContain(JSON.stringify(subject));
    }
    for (const secret of all(rendered.objects, 'Secret')) {
      for (const value of Object.values(secret.data ?? {})) {
        expect(conf).not.toContain(Buffer.from(value, 'base64').toString());
      }
    }
  });

  it('refuses a connection without credentials or with a wrong password', async () => {
    await expect(connect({ servers: url, reconnect: false, timeout: 1000 })).rejects.toThrow(
      /AUTHORIZATION/i,
    );
    await expect(
      connect({ servers: url, user: 'rooms', pass: 'not-the-password', reconnect: false, timeout: 1000 }),
    ).rejects.toThrow(/AUTHORIZATION/i);
  });

  it('lets the gateway call auth, rewards and rooms, and each service answer', async () => {
    await serve('auth', 'auth', { [Requests.auth.login]: (data) => ({ loggedIn: data }) });
    await serve('rewards', 'rewards', { [Requests.rewards.list]: () => ({ rewards: [] }) });
    await serve('rooms', 'rooms', {
      [Requests.rooms.get]: () => ({ room: 'r1' }),
      [Requests.rooms.deadline]: () => ({ applied: true }),
    });
    const gateway = await rpc('gateway');
    expect(await gateway.request(Requests.auth.login, { email: 'a@b.cd' })).toEqual({
      loggedIn: { email: 'a@b.cd' },
    });
    expect(await gateway.request(Requests.rewards.list, {})).toEqual({ rewards: [] });
    expect(await gateway.request(Requests.rooms.get, { roomId: 'r1' })).toEqual({ room: 'r1' });
    // The game timer asks rooms to apply deadlines.
    expect(await (await rpc('game-timer')).request(Requests.rooms.deadline, {})).toEqual({ applied: true });
  });

  it('refuses calls outside a service: rooms cannot call auth.delete, the gateway not rooms.deadline', async () => {
    let deletes = 0;
    await serve('auth', 'auth', {
      [Requests.auth.delete]: () => {
        deletes += 1;
        return { message: 'deleted' };
      },
    });
    const rooms = await raw('rooms');
    const violations = permissionViolations(rooms);
    rooms.publish(Requests.auth.delete, codec.encode('{"pattern":"auth.delete","data":{},"id":"x"}'));
    await expect((await rpc('rooms', 500)).request(Requests.auth.delete, { caller: {} })).rejects.toThrow();
    await expect((await rpc('gateway', 500)).request(Requests.rooms.deadline, {})).rejects.toThrow();
    await expect((await rpc('game-timer', 500)).request(Requests.rooms.edit, {})).rejects.toThrow();
    await expect((await rpc('rewards', 500)).request(Requests.auth.login, {})).rejects.toThrow();
    await rooms.flush();
    await sleep(200);
    expect(violations).toContain(`publish ${Requests.auth.delete}`);
    expect(deletes).toBe(0);
    // The gateway may.
    expect(await (await rpc('gateway')).request(Requests.auth.delete, {})).toEqual({ message: 'deleted' });
    expect(deletes).toBe(1);
  });

  it('carries the events: auth and rooms publish theirs, rewards and rooms consume, the gateway listens', async () => {
    const auth = await jetstream('auth');
    const rooms = await jetstream('rooms');
    const rewards = await jetstream('rewards');
    const gateway = await jetstream('gateway');
    // Streams are created by whichever service starts first.
    await rewards.ensureStreams([Streams.users, Streams.games]);
    // Their publishers bring the limits up to date; rooms creates the consumers GAMES keeps its
    // events for (interest retention), before its first event.
    await auth.ensureStreams([Streams.users], { updateLimits: true });
    await rooms.ensureStreams([Streams.games], { updateLimits: true });
    for (const reader of consumersOf(Streams.games.name)) await rooms.ensureConsumer(reader);

    // The gateway hears the room pushes rooms sends with each change (core NATS).
    const pushed: string[] = [];
    gateway.subscribeMessages(RoomPushSubjects.every, (msg) => pushed.push(msg.subject));
    await gateway.nc.flush();

    const users: EventEnvelope[] = [];
    const games: EventEnvelope[] = [];
    const deletions: EventEnvelope[] = [];
    await rewards.consume(Consumers.rewardsUsers, async (event) => void users.push(event));
    await rewards.consume(Consumers.rewardsGames, async (event) => void games.push(event));
    // Rooms takes deleted accounts out of their rooms.
    await rooms.ensureStreams([Streams.users]);
    await rooms.consume(Consumers.roomsUsers, async (event) => void deletions.push(event));

    await auth.publish(makeEvent(EventTypes.userRegistered, 'u1', { userId: 'u1', name: 'alice' }));
    await auth.publish(makeEvent(EventTypes.userDeleted, 'u2', { userId: 'u2' }));
    rooms.broadcastText(
      RoomPushSubjects.room('r1'),
      '{}',
      roomPushHeaders({ type: 'room-deleted', version: 2 }),
    );
    await rooms.publish(makeEvent(EventTypes.gameFinished, 'g1', { gameId: 'r1:1' } as never));

    const until = async (check: () => boolean, what: string) => {
      const deadline = Date.now() + 5000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(50);
      }
    };
    await until(() => users.length === 2, 'rewards-users');
    await until(() => games.length === 1, 'rewards-games');
    await until(() => deletions.length === 1, 'rooms-users');
    await until(() => pushed.length === 1, 'the gateway');
    expect(users.map((event) => event.type)).toEqual([EventTypes.userRegistered, EventTypes.userDeleted]);
    expect(deletions.map((event) => event.type)).toEqual([EventTypes.userDeleted]);
    expect(games[0]?.type).toBe(EventTypes.gameFinished);
    expect(pushed).toEqual([RoomPushSubjects.room('r1')]);
  });

  it('lets rooms alone send room pushes: the others are refused, and the gateway hears none of theirs', async () => {
    const gateway = await jetstream('gateway');
    const pushed: string[] = [];
    gateway.subscribeMessages(RoomPushSubjects.every, (msg) => pushed.push(msg.subject));
    await gateway.nc.flush();
    const forgers = await Promise.all(
      (['rewards', 'game-timer', 'auth', 'gateway'] as const).map((user) => raw(user)),
    );
    const violations = forgers.map((nc) => permissionViolations(nc));
    for (const nc of forgers) {
      nc.publish(RoomPushSubjects.room('r1'), codec.encode('{}'), {
        headers: natsHeadersOf(roomPushHeaders({ type: 'room-deleted', version: 9 })),
      });
      await nc.flush();
    }
    await sleep(200);
    for (const seen of violations) expect(seen).toContain(`publish ${RoomPushSubjects.room('r1')}`);
    expect(pushed).toEqual([]);
  });

  it('refuses events outside a service: rewards cannot publish room.updated, rooms not user.deleted', async () => {
    const rewards = await jetstream('rewards');
    await expect(
      rewards.publish(makeEvent(EventTypes.roomUpdated, 'forged', { roomId: 'r1' } as never)),
    ).rejects.toThrow(/PERMISSIONS|permission/i);
    const rooms = await jetstream('rooms');
    await expect(
      rooms.publish(makeEvent(EventTypes.userDeleted, 'forged', { userId: 'u1' } as never)),
    ).rejects.toThrow(/PERMISSIONS|permission/i);
    // Nor take over another service's consumer, or the streams' configuration. Rooms creates
    // GAMES' consumers but reads none of their messages.
    await expect(rewards.consume(Consumers.roomsProjector, async () => undefined)).rejects.toThrow(
      /permission/i,
    );
    const reader = Consumers.rewardsHistory; // nothing in this suite reads it
    await rooms.ensureConsumer(reader);
    await rooms.publish(makeEvent(EventTypes.gameFinished, 'g2', { gameId: 'r2:1' } as never));
    const consumer = await rooms.nc.jetstream().consumers.get(reader.stream, reader.durable);
    expect((await consumer.info()).num_pending).toBeGreaterThan(0);
    await expect(consumer.next({ expires: 1000 })).resolves.toBeNull();
    const roomsManager = await rooms.nc.jetstreamManager();
    await expect(roomsManager.consumers.delete(reader.stream, reader.durable)).rejects.toThrow(/permission/i);
    // Only a retired consumer, which no service reads any more: the server looks for it (and has
    // none here) instead of refusing the call.
    for (const retired of RetiredConsumers) {
      await expect(roomsManager.consumers.delete(retired.stream, retired.durable)).rejects.toThrow(
        /consumer not found/i,
      );
    }
    const jsm = await rewards.nc.jetstreamManager();
    await expect(jsm.streams.delete(Streams.games.name)).rejects.toThrow();
  });

  it('keeps the deadlines to rooms and the game timer: rooms schedules them, the timer consumes them', async () => {
    // The calls rooms and the game timer make (service-kit's schedules/schedule-store.ts,
    // apps/game-timer's fired-deadlines.consumer.ts).
    const rooms = await jetstream('rooms');
    const roomsJsm = await rooms.nc.jetstreamManager();
    const timer = await jetstream('game-timer');
    const jsm = await timer.nc.jetstreamManager();
    const js = timer.nc.jetstream();
    await jsm.streams.add({
      name: Streams.timers.name,
      subjects: [...Streams.timers.subjects],
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.Old,
      max_bytes: Streams.timers.maxBytes,
      max_msgs_per_subject: Streams.timers.maxMsgsPerSubject,
      allow_msg_schedules: true,
      allow_msg_ttl: true,
    } as Partial<StreamConfig> as StreamConfig);
    // Rooms keeps the stream's limits, the timer does not.
    const timersConfig = (await jsm.streams.info(Streams.timers.name)).config;
    await expect(jsm.streams.update(Streams.timers.name, timersConfig)).rejects.toThrow(/permission/i);
    await roomsJsm.streams.update(Streams.timers.name, {
      ...timersConfig,
      max_bytes: Streams.timers.maxBytes,
    });
    const { stream, durable, filterSubjects } = Consumers.timerFired;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filterSubjects[0],
    });
    const schedule = (roomId: string) => {
      const h = natsHeaders();
      h.set('Oasis-Room-Version', '1');
      h.set('Nats-Schedule', `@at ${new Date(Date.now() + 300).toISOString()}`);
      h.set('Nats-Schedule-Target', TimerSubjects.fired(roomId));
      return h;
    };
    const ack = await rooms.nc.jetstream().publish(TimerSubjects.schedule('r1'), codec.encode('{}'), {
      headers: schedule('r1'),
      expect: { lastSubjectSequence: 0 },
    });
    for (const reader of [roomsJsm, jsm]) {
      const last = await reader.streams.getMessage(Streams.timers.name, {
        last_by_subj: TimerSubjects.schedule('r1'),
      });
      expect(last.seq).toBe(ack.seq);
    }
    const fired = await (await js.consumers.get(stream, durable)).next({ expires: 5000 });
    expect(fired?.subject).toBe(TimerSubjects.fired('r1'));
    fired?.ack();

    // The timer cannot forge a fired deadline, write events, or drop its stream's contents.
    await expect(js.publish(TimerSubjects.fired('r2'), codec.encode('{}'))).rejects.toThrow(/permission/i);
    await expect(
      timer.publish(makeEvent(EventTypes.roomUpdated, 'forged', { roomId: 'r1' } as never)),
    ).rejects.toThrow(/permission/i);
    await expect(jsm.streams.purge(Streams.timers.name)).rejects.toThrow();
    await expect(jsm.streams.delete(Streams.timers.name)).rejects.toThrow();
    await expect(jsm.streams.getMessage(Streams.games.name, { seq: 1 })).rejects.toThrow();
    // Rooms cannot take the timer's consumer either.
    await expect(rooms.nc.jetstream().consumers.get(stream, durable)).rejects.toThrow(/permission/i);
    // No other service writes a schedule, reads one, or takes the timer's consumer.
    for (const user of ['gateway', 'auth', 'rewards'] as const) {
      const other = (await jetstream(user)).nc;
      await expect(
        other
          .jetstream()
          .publish(TimerSubjects.schedule('r3'), codec.encode('{}'), { headers: schedule('r3') }),
      ).rejects.toThrow(/permission/i);
      await expect(
        (await other.jetstreamManager()).streams.getMessage(Streams.timers.name, {
          last_by_subj: TimerSubjects.schedule('r1'),
        }),
      ).rejects.toThrow();
      await expect(other.jetstream().consumers.get(stream, durable)).rejects.toThrow();
    }
  });

  it('keeps the room log to rooms: it appends, reads, projects and purges it; no one else does', async () => {
    // The calls apps/rooms makes (rooms/room-log.ts, rooms/room-projector.ts).
    const rooms = await jetstream('rooms');
    await rooms.ensureStreams([Streams.roomLog], { updateLimits: true });
    const jsm = await rooms.nc.jetstreamManager();
    const js = rooms.nc.jetstream();
    const { stream, durable, filterSubjects } = Consumers.roomsProjector;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subjects: [...filterSubjects],
    });
    const first = await js.publish(RoomLogSubjects.room('r1'), codec.encode('{}'), {
      expect: { lastSubjectSequence: 0, streamName: stream },
    });
    await js.publish(RoomLogSubjects.room('r1'), codec.encode('{}'), {
      expect: { lastSubjectSequence: first.seq, streamName: stream },
    });
    const last = await jsm.streams.getMessage(stream, { last_by_subj: RoomLogSubjects.room('r1') });
    const message = await (await js.consumers.get(stream, durable)).next({ expires: 5000 });
    expect(message?.subject).toBe(RoomLogSubjects.room('r1'));
    message?.ack();
    await jsm.streams.purge(stream, { filter: RoomLogSubjects.room('r1'), seq: last.seq });
    expect((await jsm.streams.info(stream)).state.messages).toBe(1);

    // No other service appends to it, reads it, purges it or takes the projector's consumer.
    for (const user of ['gateway', 'auth', 'rewards', 'game-timer'] as const) {
      const other = (await jetstream(user)).nc;
      await expect(other.jetstream().publish(RoomLogSubjects.room('r2'), codec.encode('{}'))).rejects.toThrow(
        /permission/i,
      );
      const otherJsm = await other.jetstreamManager();
      await expect(
        otherJsm.streams.getMessage(stream, { last_by_subj: RoomLogSubjects.room('r1') }),
      ).rejects.toThrow();
      await expect(otherJsm.streams.purge(stream)).rejects.toThrow();
      await expect(other.jetstream().consumers.get(stream, durable)).rejects.toThrow();
    }
  });

  it('keeps replies and requests private: no one else reads the gateway inbox or serves auth.*', async () => {
    const rewards = await raw('rewards');
    const refused = async (subject: string, queue?: string) => {
      const subscription = rewards.subscribe(subject, queue ? { queue } : {});
      const received: string[] = [];
      const ended = (async () => {
        for await (const msg of subscription) received.push(msg.subject);
      })();
      await expect(ended).rejects.toThrow(/Permissions Violation for Subscription/);
      return received;
    };
    expect(await refused('_INBOX.gateway.>')).toEqual([]);
    expect(await refused(Requests.auth.login, 'auth')).toEqual([]);
    expect(await refused('>')).toEqual([]);
    expect(await refused('_INBOX.>')).toEqual([]);
  });

  it('gives the limits bucket to the gateway and rooms only (service-kit KvStore)', async () => {
    const gateway = await jetstream('gateway');
    const fromGateway = await KvStore.open(gateway.nc, KvBuckets.limits, 60_000);
    const first = await fromGateway.write('login.a', codec.encode('1'), 0);
    expect(first).toBeGreaterThan(0);
    // Rooms opens it with a longer TTL, which updates the bucket's stream.
    const rooms = await jetstream('rooms');
    const fromRooms = await KvStore.open(rooms.nc, KvBuckets.limits, 120_000);
    const seen = await fromRooms.read('login.a');
    expect(codec.decode(seen.value ?? new Uint8Array())).toBe('1');
    expect(await fromRooms.write('login.a', codec.encode('2'), seen.revision)).toBeGreaterThan(seen.revision);
    expect(await fromGateway.write('login.a', codec.encode('3'), seen.revision)).toBeNull();
    expect(codec.decode((await fromGateway.read('login.a')).value ?? new Uint8Array())).toBe('2');

    for (const user of ['rewards', 'auth', 'game-timer'] as const) {
      const other = await jetstream(user);
      await expect(KvStore.open(other.nc, KvBuckets.limits, 60_000)).rejects.toThrow();
      const raw = await other.nc.jetstream().views.kv(KvBuckets.limits, { bindOnly: true });
      await expect(raw.put('login.a', codec.encode('0'))).rejects.toThrow();
    }
    expect(codec.decode((await fromGateway.read('login.a')).value ?? new Uint8Array())).toBe('2');
  });

  it('lets auth alone write the token bucket, and the gateway read and watch it', async () => {
    const bucket = KvBuckets.tokens;
    const auth = await jetstream('auth');
    const kv = await auth.nc.jetstream().views.kv(bucket, { history: 1, ttl: 60_000, max_bytes: 1 << 20 });
    expect(await kv.put('token.j1', codec.encode('{"until":1}'))).toBeGreaterThan(0);

    // The gateway watches (an ordered consumer with flow control) and reads by key...
    const gateway = await jetstream('gateway');
    const info = await (await gateway.nc.jetstreamManager()).streams.info(`KV_${bucket}`);
    const fromGateway = await gateway.nc
      .jetstream()
      .views.kv(bucket, { bindOnly: true, allow_direct: info.config.allow_direct });
    const seen: string[] = [];
    const watch = await fromGateway.watch();
    void (async () => {
      for await (const entry of watch) seen.push(entry.key);
    })();
    await kv.put('user.u1', codec.encode('{"tokenVersion":1,"until":1}'));
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline) await sleep(50);
    expect(seen).toEqual(['token.j1', 'user.u1']);
    expect(codec.decode((await fromGateway.get('token.j1'))?.value ?? new Uint8Array())).toBe('{"until":1}');
    // ...but cannot write a key, nor change or create the bucket.
    await expect(fromGateway.put('token.forged', codec.encode('{}'))).rejects.toThrow();
    await expect(fromGateway.delete('token.j1')).rejects.toThrow();
    await expect(gateway.nc.jetstream().views.kv(`${bucket}-x`)).rejects.toThrow();
    const gatewayJsm = await gateway.nc.jetstreamManager();
    await expect(gatewayJsm.streams.update(`KV_${bucket}`, { ...info.config, max_age: 0 })).rejects.toThrow();
    watch.stop();

    // No other service reads or writes it.
    for (const user of ['rewards', 'rooms', 'game-timer'] as const) {
      const other = await jetstream(user);
      const raw = await other.nc.jetstream().views.kv(bucket, { bindOnly: true });
      await expect(raw.put('token.j2', codec.encode('{}'))).rejects.toThrow();
      await expect(raw.get('token.j1')).rejects.toThrow();
    }
    expect((await kv.get('token.forged')) ?? null).toBeNull();
    expect(codec.decode((await kv.get('token.j1'))?.value ?? new Uint8Array())).toBe('{"until":1}');
  });
});

describe("the in-cluster NATS's init container script", () => {
  const { config, initFiles } = renderNats();
  const script = must(config['write-passwords.sh'], 'write-passwords.sh');
  const variables = [...initFiles.keys()].map((file) => path.posix.basename(file));

  /** Runs the script on password files as the projected volume holds them; its exit and output. */
  const runScript = (passwords: Record<string, string>) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-nats-passwords-'));
    try {
      mkdirSync(path.join(dir, 'secrets'));
      for (const [name, value] of Object.entries(passwords))
        writeFileSync(path.join(dir, 'secrets', name), value);
      writeFileSync(path.join(dir, 'write-passwords.sh'), script);
      const out = path.join(dir, 'passwords.conf');
      const result = spawnSync('sh', [path.join(dir, 'write-passwords.sh'), path.join(dir, 'secrets'), out], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] },
      });
      let written = '';
      try {
        written = readFileSync(out, 'utf8');
      } catch {
        // not written
      }
      return { status: result.status, stderr: result.stderr, written };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const all = (value: string) => Object.fromEntries(variables.map((v) => [v, value]));

  it('writes every password as a quoted string, as its Secret holds it but for surrounding whitespace', () => {
    expect(variables).toHaveLength(NATS_USERS.length);
    const [first = '', second = '', third = ''] = variables;
    const result = runScript({
      ...all('plain-password'),
      // Digits only (nats-server would read a number), a Secret made from a file (newline), quotes,
      // backslashes and inner spaces.
      [first]: '0123456789',
      [second]: '  s3cret-from-a-file\n',
      [third]: 'with "quotes" \\ and spaces',
    });
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.written.split('\n')).toEqual(
      expect.arrayContaining([
        `${first}: "0123456789"`,
        `${second}: "s3cret-from-a-file"`,
        `${third}: "with \\"quotes\\" \\\\ and spaces"`,
      ]),
    );
    expect(result.written.trim().split('\n')).toHaveLength(variables.length);
  });

  it('stops, naming the password, when a file is missing, empty or several lines long', () => {
    const [first = '', second = '', third = ''] = variables;
    const { [first]: _missing, ...rest } = all('plain-password');
    expect(runScript(rest)).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`${first}: cannot read`),
    });
    expect(runScript({ ...all('plain-password'), [second]: ' \n' })).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`${second} is empty`),
    });
    expect(runScript({ ...all('plain-password'), [third]: 'one\ntwo' })).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`${third} spans several lines`),
    });
  });
});
