import { KvBuckets, Streams } from '@oasis198/contracts';
import { freePort, uniqueName, waitFor } from '@oasis198/testing';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { KvStore } from '../limits/versioned-store';
import { createLogger } from '../logger';
import { ensureTimerStream } from '../schedules/schedule-store';
import { JetStreamService, type StreamSpec } from './jetstream.service';
import { openKvBucket } from './kv-bucket';

// Streams and KV buckets on a three-node JetStream cluster (nats-server from .tools/bin, as
// compose.yaml and the charts run it): created with NATS_STREAM_REPLICAS copies, and an existing
// single-copy stream or bucket brought to that many by its owner.
const NATS_SERVER = path.resolve(__dirname, '../../../../.tools/bin/nats-server');

interface Cluster {
  url: string;
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
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
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
  return { url, stop };
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
});
