import type { INestApplication } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import { Consumers } from '@oasis198/contracts';
import { createLogger, createService, JetStreamService, natsServers, RpcClient } from '@oasis198/service-kit';
import { serviceTestEnv, startTestInfra, type TestInfra, waitFor } from '@oasis198/testing';
import type { Model } from 'mongoose';
import { rewardsDefinition } from '../rewards.definition';

/** What a rewards integration suite talks to; see useRewardsStack. */
export interface RewardsStack {
  infra: TestInfra;
  /** The replicas' environment, to start one more (createService(rewardsDefinition, env)). */
  env: Record<string, string>;
  /** Two replicas sharing the durable consumers and the database, as in production. */
  replicas: INestApplication[];
  /** Calls the service over NATS, as the gateway does. */
  rpc: RpcClient;
  /** Publishes the events the service consumes. */
  events: JetStreamService;
  /** A mongoose model of the service's database (through the first replica). */
  model<T>(name: string): Model<T>;
  /** Waits until every durable consumer of rewards has handled every event published. */
  drain(): Promise<void>;
}

/**
 * For Jest suites: real NATS and a real MongoDB-compatible server with two rewards replicas on a
 * fresh database, started in beforeAll and stopped in afterAll (apps first, then the servers).
 * `env` adds to or overrides the replicas' environment. The getter works inside tests.
 */
export function useRewardsStack(name: string, env: Record<string, string> = {}): () => RewardsStack {
  let stack: RewardsStack | undefined;
  let infra: TestInfra | undefined;
  const replicas: INestApplication[] = [];
  let rpc: RpcClient | undefined;
  let events: JetStreamService | undefined;

  beforeAll(async () => {
    infra = await startTestInfra();
    const fullEnv = serviceTestEnv(infra, name, { SHUTDOWN_GRACE_MS: '200', ...env });
    for (let i = 0; i < 2; i++) replicas.push((await createService(rewardsDefinition, fullEnv)).app);
    rpc = await RpcClient.forTests(infra.natsUrl, name, 5000);
    events = new JetStreamService(
      { servers: natsServers(infra.natsUrl), name },
      createLogger(name, 'silent'),
    );
    await events.connect();
    const connected = events;
    stack = {
      infra,
      env: fullEnv,
      replicas,
      rpc,
      events,
      model: <T>(model: string) => (replicas[0] as INestApplication).get<Model<T>>(getModelToken(model)),
      drain: () => drain(connected),
    };
  }, 120_000);

  afterAll(async () => {
    await rpc?.close();
    await events?.close();
    for (const app of replicas) await app.close();
    await infra?.stop();
  }, 60_000);

  return () => {
    if (!stack) throw new Error('useRewardsStack(): not started yet');
    return stack;
  };
}

async function drain(events: JetStreamService): Promise<void> {
  const jsm = await events.nc.jetstreamManager();
  await waitFor(
    async () => {
      for (const consumer of [Consumers.rewardsUsers, Consumers.rewardsGames, Consumers.rewardsHistory]) {
        const info = await jsm.consumers.info(consumer.stream, consumer.durable);
        if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
      }
      return true;
    },
    { timeoutMs: 15_000, what: 'the consumers to handle every event' },
  );
}
