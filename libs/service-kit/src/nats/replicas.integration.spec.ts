import { type EventEnvelope, type EventType, KvBuckets, Streams } from '@oasis198/contracts';
import { freePort, uniqueName, waitFor } from '@oasis198/testing';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, JSONCodec, type JetStreamManager, type Msg, type NatsConnection } from 'nats';
import { KvStore } from '../limits/versioned-store';
import { createLogger } from '../logger';
import { ensureTimerStream } from '../schedules/schedule-store';
import { JetStreamService, type StreamSpec } from './jetstream.service';
import { openKvBucket } from './kv-bucket';
import { RpcClient } from './rpc-client';
import type { ClientNats } from '@nestjs/microservices';

// Streams and KV buckets on a three-node JetStream cluster (nats-server from .tools/bin, as
// compose.yaml and the charts run it): created with NATS_STREAM_REPLICAS copies, and an existing
// single-copy stream or bucket brought to that many by its owner.
const NATS_SERVER = path.resolve(__dirname, '../../../../.tools/bin/nats-server');

interface Cluster {
  url: string;
  /** The nodes still running (n0, n1, n2) and each one's client URL. */
  running(): string[];
  urlOf(name: string): string;
  /** SIGKILLs a node by its server name (n0, n1, n2), as the container fault test crashes one. */
  crash(name: string): void;
  stop(): Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-nats-cluster-'));
  const nodes = await Promise.all(
    [0, 1, 2].map(async () => ({ port: await freePort(), route: await freePort() })),
  );
  const routes = nodes.map((n) => `nats://127.0.0.1:${n.route}`).join(',');
  const children: ChildProcess[] = nodes.map((node, i) =>
    spawn(
      NATS_SERVER,
      [
        ...['-a', '127.0.0.1', '-p', String(node.port), '--server_name', `n${i}`, '-js'],
        ...['-sd', path.join(dir, `n${i}`), '--cluster_name', 'oasis-test'],
        ...['--cluster', `nats://127.0.0.1:${node.route}`, '--routes', routes],
      ],
      { stdio: 'ignore' },
    ),
  );
  const url = nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  // A child killed by a signal has a signalCode and no exitCode.
  const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const crash = (name: string) => {
    const child = children[Number(name.replace(/^n/, ''))];
    if (!child || exited(child)) throw new Error(`no running node ${name}`);
    child.kill('SIGKILL');
  };
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (exited(child)) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // JetStream answers once the three nodes have elected a meta leader.
    const nc = await waitFor(() => connect({ servers: url.split(',') }), { what: 'the cluster' });
    await waitFor(async () => (await nc.jetstreamManager()).getAccountInfo(), {
      timeoutMs: 45_000,
      what: 'JetStream on the cluster',
    });
    await nc.close();
  } catch (error) {
    await stop();
    throw error;
  }
  const running = () => children.flatMap((child, i) => (exited(child) ? [] : [`n${i}`]));
  const urlOf = (name: string) => `nats://127.0.0.1:${nodes[Number(name.replace(/^n/, ''))]?.port}`;
  return { url, running, urlOf, crash, stop };
}

/** Answers a ClientNats request with its own data, as a NestJS service would. */
function echo(_error: unknown, msg: Msg): void {
  const packet = JSONCodec<{ id: string; data: unknown }>().decode(msg.data);
  msg.respond(JSON.stringify({ id: packet.id, response: packet.data, isDisposed: true }));
}

describe('streams and buckets on a three-node cluster', () => {
  const logger = createLogger('replicas-it', 'silent');
  let cluster: Cluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const services: JetStreamService[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    nc = await connect({ servers: cluster.url.split(',') });
    jsm = await nc.jetstreamManager();
  }, 60_000);

  afterAll(async () => {
    for (const service of services) await service.close();
    await nc?.close();
    await cluster?.stop();
  });

  async function service(streamReplicas?: number): Promise<JetStreamService> {
    const js = new JetStreamService(
      { servers: cluster.url.split(','), name: 'replicas-it', streamReplicas },
      logger,
    );
    await js.connect();
    services.push(js);
    return js;
  }

  const spec = (): StreamSpec => {
    const name = uniqueName('r3');
    return { name, subjects: [`${name}.>`], maxBytes: 1024 * 1024 };
  };
  const replicasOf = async (stream: string) => (await jsm.streams.info(stream)).config.num_replicas;

  it('creates a stream with the configured replicas', async () => {
    const stream = spec();
    await (await service(3)).ensureStreams([stream]);
    expect(await replicasOf(stream.name)).toBe(3);
  });

  it('brings an existing single-copy stream to the replicas of its publisher, not of a consumer', async () => {
    const stream = spec();
    await (await service()).ensureStreams([stream]);
    expect(await replicasOf(stream.name)).toBe(1);
    const r3 = await service(3);
    await r3.ensureStreams([stream]);
    expect(await replicasOf(stream.name)).toBe(1);
    await r3.ensureStreams([stream], { updateLimits: true });
    expect(await replicasOf(stream.name)).toBe(3);
  });

  it('creates a KV bucket with the replicas asked for, and brings an existing one to them', async () => {
    const created = uniqueName('r3kv');
    await KvStore.open(nc, created, 60_000, { maxBytes: 1024 * 1024, maxValueSize: 256, replicas: 3 });
    expect(await replicasOf(`KV_${created}`)).toBe(3);

    const existing = uniqueName('r1kv');
    await openKvBucket(nc, existing, { history: 1 });
    expect(await replicasOf(`KV_${existing}`)).toBe(1);
    await openKvBucket(nc, existing, { history: 1, replicas: 3 });
    expect(await replicasOf(`KV_${existing}`)).toBe(3);
  });

  it('creates the timer stream with the replicas asked for; its keeper brings it to them', async () => {
    await ensureTimerStream(jsm, undefined, 1);
    expect(await replicasOf(Streams.timers.name)).toBe(1);
    await ensureTimerStream(jsm, undefined, 3); // the game timer: creates only
    expect(await replicasOf(Streams.timers.name)).toBe(1);
    await ensureTimerStream(jsm, Streams.timers.maxBytes, 3); // rooms keeps its limits
    expect(await replicasOf(Streams.timers.name)).toBe(3);
  });

  it('keeps a bucket opened without replicas as it is', async () => {
    const bucket = KvBuckets.tokens;
    await openKvBucket(nc, bucket, { history: 1, replicas: 3 });
    await openKvBucket(nc, bucket, { history: 1 });
    expect(await replicasOf(`KV_${bucket}`)).toBe(3);
  });

  const leaderOf = async (stream: string) => (await jsm.streams.info(stream)).cluster?.leader ?? '';

  /** Asks the stream's leader to step down in favour of `to` until `to` leads it. */
  async function moveLeader(stream: string, to: string): Promise<void> {
    await waitFor(
      async () => {
        if ((await leaderOf(stream)) === to) return true;
        await nc
          .request(
            `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`,
            JSONCodec().encode({ placement: { preferred: to } }),
          )
          .catch(() => undefined);
        return false;
      },
      { timeoutMs: 30_000, what: `${to} to lead ${stream}` },
    );
  }

  it('answers an append repeated with its Nats-Msg-Id as a duplicate, not as a lost race', async () => {
    // What a retried append relies on when its first attempt was stored but its answer lost.
    const stream = spec();
    await (await service(3)).ensureStreams([stream]);
    const js = nc.jetstream();
    const subject = `${stream.name}.room`;
    const append = (msgID: string) =>
      js.publish(subject, new Uint8Array([1]), { msgID, expect: { lastSubjectSequence: 0 } });
    const first = await append('change-1');
    expect(await append('change-1')).toMatchObject({ seq: first.seq, duplicate: true });
    await expect(append('change-2')).rejects.toMatchObject({ api_error: { err_code: 10071 } });
  });

  // Last: it leaves one node down.
  it("publishes and compare-and-sets through the crash of their streams' leader", async () => {
    const events = await service(3);
    const stream = spec();
    await events.ensureStreams([stream]);
    const bucket = uniqueName('r3cas');
    const store = await KvStore.open(nc, bucket, 60_000, {
      maxBytes: 1024 * 1024,
      maxValueSize: 256,
      replicas: 3,
    });
    const event = (n: number) =>
      ({
        id: uniqueName('event'),
        type: `${stream.name}.happened` as EventType,
        occurredAt: new Date().toISOString(),
        data: { n },
      }) as unknown as EventEnvelope;
    await events.publish(event(0));
    const revision = (await store.write('key', new Uint8Array([1]), 0)) as number;
    const leader = await leaderOf(stream.name);
    await moveLeader(`KV_${bucket}`, leader);

    cluster.crash(leader);
    const crashedAt = Date.now();
    const took = async <T>(promise: Promise<T>) => ({ value: await promise, ms: Date.now() - crashedAt });
    const [published, written] = await Promise.all([
      took(events.publish(event(1))),
      took(store.write('key', new Uint8Array([2]), revision)),
    ]);
    process.stdout.write(
      `${leader} (leader of ${stream.name} and KV_${bucket}) SIGKILLed: the publish answered after ` +
        `${published.ms} ms, the compare-and-set after ${written.ms} ms; new leaders ` +
        `${await leaderOf(stream.name)}, ${await leaderOf(`KV_${bucket}`)}\n`,
    );

    expect(published.value).toMatchObject({ seq: 2, duplicate: false });
    expect(written.value).toBeGreaterThan(revision);
    expect(await store.read('key')).toEqual({ revision: written.value, value: new Uint8Array([2]) });
    expect((await jsm.streams.info(stream.name)).state.messages).toBe(2);
  }, 60_000);

  it('waits for the responders of a subject while they reconnect, instead of answering 503 at once', async () => {
    // As after the crash of the node every replica of a service was on: NATS answers "no
    // responders" until one of them has reconnected to another node and subscribed again.
    const [clientNode, responderNode] = cluster.running() as [string, string];
    const subject = uniqueName('replicas-it.late');
    const rpc = await RpcClient.forTests(cluster.urlOf(clientNode), 'replicas-it-rpc', 5000);
    const responder = await connect({ servers: [cluster.urlOf(responderNode)] });
    try {
      const asked = Date.now();
      const answer = rpc.request(subject, { n: 2 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      responder.subscribe(subject, { queue: 'replicas-it', callback: echo });
      expect(await answer).toEqual({ n: 2 });
      process.stdout.write(`answered ${Date.now() - asked} ms after it was asked\n`);
    } finally {
      await rpc.close();
      await responder.close();
    }
  }, 30_000);

  it('sends an RPC made while its client reconnects once it has, instead of failing it at once', async () => {
    // The client on one node, the responder on another: the client's node crashes.
    const [clientNode, responderNode] = cluster.running() as [string, string];
    const responder = await connect({ servers: [cluster.urlOf(responderNode)] });
    responder.subscribe('replicas-it.echo', { queue: 'replicas-it', callback: echo });
    await responder.flush();
    const rpc = await RpcClient.forTests(cluster.urlOf(clientNode), 'replicas-it-rpc', 5000);
    try {
      expect(await rpc.request('replicas-it.echo', { n: -1 })).toEqual({ n: -1 });
      // A request made the moment the client learns its node is gone: before the reconnect, and
      // after any request that was in flight on the dead connection.
      const client = (rpc as unknown as { client: ClientNats }).client;
      const during = new Promise<Promise<unknown>>((resolve) =>
        client.on('disconnect', () => resolve(rpc.request('replicas-it.echo', { n: 0 }))),
      );
      cluster.crash(clientNode);
      expect(await await during).toEqual({ n: 0 });
      expect(await rpc.request('replicas-it.echo', { n: 1 })).toEqual({ n: 1 });
    } finally {
      await rpc.close();
      await responder.close();
    }
  }, 60_000);
});
