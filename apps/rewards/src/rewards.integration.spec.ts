import type { INestApplication } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import {
  Consumers,
  type EventEnvelope,
  EventIds,
  EventTypes,
  type GameFinished,
  Requests,
  type RewardView,
} from '@oasis198/contracts';
import {
  createLogger,
  createService,
  JetStreamService,
  makeEvent,
  natsServers,
  RpcClient,
} from '@oasis198/service-kit';
import { mongoUrlFor, startTestInfra, type TestInfra, uniqueName, waitFor } from '@oasis198/testing';
import type { Model } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { Reward } from './rewards/reward.schema';
import { rewardsDefinition } from './rewards.definition';

describe('rewards service: events applied once, whatever the order or the copies', () => {
  let infra: TestInfra;
  const replicas: INestApplication[] = [];
  let rpc: RpcClient;
  let events: JetStreamService;

  beforeAll(async () => {
    infra = await startTestInfra();
    const env = {
      NATS_URL: infra.natsUrl,
      MONGO_URL: mongoUrlFor(infra, uniqueName('rewards-it')),
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      NODE_ENV: 'test',
      RECENT_GAMES_KEPT: '10',
      SHUTDOWN_GRACE_MS: '200',
    };
    // Two replicas share the durable consumers, as in production.
    for (let i = 0; i < 2; i++) replicas.push((await createService(rewardsDefinition, env)).app);
    const logger = createLogger('rewards-it', 'silent');
    rpc = new RpcClient(natsServers(infra.natsUrl), 'rewards-it', 5000, logger);
    await rpc.connect();
    events = new JetStreamService({ servers: natsServers(infra.natsUrl), name: 'rewards-it' }, logger);
    await events.connect();
  }, 120_000);

  afterAll(async () => {
    await rpc?.close();
    await events?.close();
    for (const app of replicas) await app.close();
    await infra?.stop();
  }, 60_000);

  const rewards = () => {
    const [app] = replicas;
    if (!app) throw new Error('rewards is not running');
    return app.get<Model<Reward>>(getModelToken(Reward.name));
  };
  const get = (userId: string) => rpc.request<RewardView>(Requests.rewards.get, { userId });
  const until = (userId: string, check: (r: RewardView) => boolean, what: string) =>
    waitFor(
      async () => {
        const reward = await get(userId).catch(() => undefined);
        return reward && check(reward) ? reward : undefined;
      },
      { timeoutMs: 15_000, what },
    );

  const publish = (event: EventEnvelope) => events.publish(event);
  const registeredEvent = (
    userId: string,
    name: string,
    id = EventIds.userRegistered(userId),
    at = new Date(),
  ) => makeEvent(EventTypes.userRegistered, id, { userId, name }, at);
  const renamedEvent = (userId: string, name: string, at: Date) =>
    makeEvent(EventTypes.userRenamed, EventIds.userRenamed(userId, name, at.getTime()), { userId, name }, at);
  let n = 0;
  const finished = (winner: string, loser: string, gameId = `room-${randomUUID()}:${++n}`): GameFinished => ({
    gameId,
    roomId: gameId.slice(0, gameId.lastIndexOf(':')),
    gameNumber: n,
    winner: { id: winner, name: `w${winner.slice(0, 6)}`, seat: 'player1' },
    loser: { id: loser, name: `l${loser.slice(0, 6)}`, seat: 'player2' },
    endReason: 'reached198',
    duration: 32,
    playedSeconds: 60,
    specialRandom: 654321,
    moves: 25,
    finishedAt: new Date().toISOString(),
  });
  const gameEvent = (game: GameFinished, id = EventIds.gameFinished(game.gameId)) =>
    makeEvent(EventTypes.gameFinished, id, game);

  /** Waits until both durable consumers have nothing pending or unacknowledged: every event published is handled. */
  async function drain(): Promise<void> {
    const jsm = await events.nc.jetstreamManager();
    await waitFor(
      async () => {
        for (const consumer of [Consumers.rewardsUsers, Consumers.rewardsGames]) {
          const info = await jsm.consumers.info(consumer.stream, consumer.durable);
          if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
        }
        return true;
      },
      { timeoutMs: 15_000, what: 'the consumers to handle every event' },
    );
  }

  it('creates one record for a registration delivered several times', async () => {
    const id = randomUUID();
    await publish(registeredEvent(id, 'Twice1'));
    await publish(registeredEvent(id, 'Twice1'));
    await publish(registeredEvent(id, 'Twice1', `${EventIds.userRegistered(id)}:copy`));
    await drain();
    expect(await rewards().countDocuments({ _id: id })).toBe(1);
    expect(await get(id)).toMatchObject({ playerName: 'Twice1', playedGames: 0 });
  });

  it('keeps the newest name when an older rename arrives late', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 60_000;
    await publish(registeredEvent(id, 'First1', undefined, new Date(t0)));
    await publish(renamedEvent(id, 'Newest1', new Date(t0 + 20_000)));
    await publish(renamedEvent(id, 'Older1', new Date(t0 + 10_000)));
    await drain();
    expect((await get(id)).playerName).toBe('Newest1');
  });

  it('pays a game that arrives before the registration, and the registration keeps the points', async () => {
    const [winner, loser] = [randomUUID(), randomUUID()];
    await publish(gameEvent(finished(winner, loser)));
    await until(winner, (r) => r.playedGames === 1, 'the early game');
    await publish(registeredEvent(winner, 'Early1'));
    await drain();
    expect(await get(winner)).toMatchObject({
      playerName: 'Early1',
      playedGames: 1,
      assets: { points: 25, coins: 10 },
    });
  });

  it('pays each game exactly once across replicas, with copies mixed in, and keeps the game list bounded', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const games = Array.from({ length: 15 }, () => finished(a, b));
    for (const game of games) {
      await publish(gameEvent(game));
      await publish(gameEvent(game, `${EventIds.gameFinished(game.gameId)}:copy`));
    }
    const winner = await until(a, (r) => r.playedGames >= 15, 'fifteen games');
    await drain();
    expect(await get(a)).toMatchObject({ playedGames: 15, assets: { points: 375, coins: 150 } });
    expect(winner.levelStatus.level).toBe(4);
    expect(await get(b)).toMatchObject({ playedGames: 15, assets: { points: 75, coins: 15 } });
    const stored = await rewards().findById(a).lean();
    expect(stored?.recentGames).toEqual(games.slice(-10).map((g) => g.gameId));
  });

  it('never brings a deleted player back, whatever comes after the deletion', async () => {
    const [gone, other] = [randomUUID(), randomUUID()];
    await publish(registeredEvent(gone, 'Gone1'));
    await until(gone, () => true, 'the record');
    await publish(makeEvent(EventTypes.userDeleted, EventIds.userDeleted(gone), { userId: gone }));
    await publish(makeEvent(EventTypes.userDeleted, `${EventIds.userDeleted(gone)}:copy`, { userId: gone }));
    await publish(registeredEvent(gone, 'Gone1', `${EventIds.userRegistered(gone)}:late`));
    await publish(renamedEvent(gone, 'Ghost1', new Date()));
    await publish(gameEvent(finished(gone, other)));
    await drain();
    await expect(get(gone)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await rewards().exists({ _id: gone })).toBeNull();
    expect(await get(other)).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
  });

  it('terminates a malformed event and goes on with the next ones', async () => {
    await publish(
      makeEvent(EventTypes.gameFinished, `broken-${randomUUID()}`, {
        gameId: 'x',
      } as unknown as GameFinished),
    );
    await publish(makeEvent(EventTypes.userRegistered, `broken-${randomUUID()}`, {} as never));
    await drain();
  });
});
