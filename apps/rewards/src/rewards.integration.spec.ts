import {
  Consumers,
  type EventEnvelope,
  EventIds,
  EventTypes,
  type GameFinished,
  Requests,
  type RewardView,
  Streams,
} from '@oasis198/contracts';
import {
  createLogger,
  DEAD_LETTERS_COLLECTION,
  type DeadLetterRecord,
  makeEvent,
  type OutboxDocument,
  OutboxRelay,
  outboxOf,
  replayDeadLetters,
} from '@oasis198/service-kit';
import { mongoUrlFor, uniqueName, waitFor } from '@oasis198/testing';
import mongoose, { Schema } from 'mongoose';
import { nanos } from 'nats';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { drawnGame, wonGame } from './player-events/game-finished.fixtures';
import { PlayerEventsService } from './player-events/player-events.service';
import { DeletedPlayer, PaidGame, paidGameId, Reward } from './rewards/reward.schema';
import { RewardsRepository } from './rewards/rewards.repository';
import { useRewardsStack } from './testing/rewards-stack';

describe('rewards service: events applied once, whatever the order or the copies', () => {
  // Game ids leave a record 2 s after their ledger record, once 10 newer ones are there.
  const HELD_MS = 2000;
  const stack = useRewardsStack('rewards-it', {
    RECENT_GAMES_KEPT: '10',
    RECENT_GAMES_HELD_MS: String(HELD_MS),
  });
  const rewards = () => stack().model<Reward>(Reward.name);
  const get = (userId: string) => stack().rpc.request<RewardView>(Requests.rewards.get, { userId });
  const until = (userId: string, check: (r: RewardView) => boolean, what: string) =>
    waitFor(
      async () => {
        const reward = await get(userId).catch(() => undefined);
        return reward && check(reward) ? reward : undefined;
      },
      { timeoutMs: 15_000, what },
    );

  const publish = (event: EventEnvelope) => stack().events.publish(event);
  const registeredEvent = (
    userId: string,
    name: string,
    id = EventIds.userRegistered(userId),
    at = new Date(),
  ) => makeEvent(EventTypes.userRegistered, id, { userId, name }, at);
  const renamedEvent = (userId: string, name: string, at: Date) =>
    makeEvent(EventTypes.userRenamed, EventIds.userRenamed(userId, name, at.getTime()), { userId, name }, at);
  let n = 0;
  /** The ids of a new game of a new room, finished now. */
  const newGame = () => {
    const roomId = `room-${randomUUID()}`;
    return { gameId: `${roomId}:${++n}`, roomId, gameNumber: n, finishedAt: new Date().toISOString() };
  };
  const finished = (winner: string, loser: string): GameFinished =>
    wonGame(
      { id: winner, name: `w${winner.slice(0, 6)}` },
      { id: loser, name: `l${loser.slice(0, 6)}` },
      { ...newGame(), moves: 25 },
    );
  /** A draw (the move limit) between two players, in a 14-second room. */
  const drawn = (player1: string, player2: string): GameFinished =>
    drawnGame(
      { id: player1, name: `w${player1.slice(0, 6)}` },
      { id: player2, name: `l${player2.slice(0, 6)}` },
      { ...newGame(), duration: 14 },
    );
  const gameEvent = (game: GameFinished, id = EventIds.gameFinished(game.gameId)) =>
    makeEvent(EventTypes.gameFinished, id, game);

  const drain = () => stack().drain();

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
    // Every id is still held: a copy whose ledger read came before the first one's record may
    // still be crediting, and the id refuses it.
    expect((await rewards().findById(b).lean())?.recentGames).toHaveLength(15);
    // Once held long enough, the next game trims the list to the last 10 paid, in the order they
    // were paid: with two replicas, each applying several events at once, that need not be the
    // order they were published in.
    await sleep(HELD_MS + 100);
    const last = finished(a, b);
    await publish(gameEvent(last));
    await until(b, (r) => r.playedGames === 16, 'the sixteenth game');
    await drain();
    expect(await get(b)).toMatchObject({ playedGames: 16, assets: { points: 80, coins: 16 } });
    const kept = (await rewards().findById(a).lean())?.recentGames ?? [];
    expect(kept).toHaveLength(10);
    expect(new Set(kept).size).toBe(10);
    expect([...games, last].map((g) => g.gameId)).toEqual(expect.arrayContaining(kept));
  });

  it('pays each player of a draw one played game, no points, no coins and no title, once', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await publish(registeredEvent(a, 'Drawa1'));
    const game = drawn(a, b);
    await publish(gameEvent(game));
    await publish(gameEvent(game, `${EventIds.gameFinished(game.gameId)}:copy`));
    await until(b, (r) => r.playedGames === 1, 'the draw');
    await drain();
    for (const id of [a, b]) {
      const reward = await get(id);
      expect(reward).toMatchObject({ playedGames: 1, assets: { points: 0, coins: 0 } });
      expect(reward.championStatus.blitzWinner).toBe(false);
    }
    expect((await get(a)).playerName).toBe('Drawa1');
  });

  it('pays a game once even when it is redelivered after the player played 250 more', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const games = Array.from({ length: 250 }, () => finished(a, b));
    // Paid as the consumer pays them (the suite remembers only the last 10 game ids per player).
    const service = stack().replicas[0]?.get(PlayerEventsService);
    for (const game of games) await service?.onGameEvents([gameEvent(game)]);
    const before = await get(a);
    expect(before).toMatchObject({ playedGames: 250, assets: { points: 6250, coins: 2500 } });
    // The first game comes again through the stream (a consumer replayed from the start).
    const first = games[0] as GameFinished;
    await publish(gameEvent(first, `${EventIds.gameFinished(first.gameId)}:replayed`));
    await drain();
    expect(await get(a)).toEqual(before);
    expect(await get(b)).toMatchObject({ playedGames: 250, assets: { points: 1250, coins: 250 } });
  }, 120_000);

  it('trims the oldest game ids a tenth of the limit at a time, each one in the ledger first', async () => {
    // A repository remembering 30 ids (the suite's replicas remember 10, a step of one).
    const model = <T>(name: string) => stack().model<T>(name);
    const remembering30 = (heldMs: number) =>
      new RewardsRepository(
        model<Reward>(Reward.name),
        model<DeletedPlayer>(DeletedPlayer.name),
        model<PaidGame>(PaidGame.name),
        { RECENT_GAMES_KEPT: 30, RECENT_GAMES_HELD_MS: heldMs },
      );
    const repository = remembering30(0);
    const playerId = randomUUID();
    const credit = { playerId, playerName: 'Trim1', points: 1, coins: 1, wins: 0, titles: [] };
    const gameIds = Array.from({ length: 40 }, () => newGame().gameId);
    const lengths: number[] = [];
    for (const [i, gameId] of gameIds.entries()) {
      // The ledger record of the 3rd game is lost, as if the process had died right after paying.
      if (i === 3)
        await model<PaidGame>(PaidGame.name).deleteOne({ _id: paidGameId(playerId, gameIds[2] ?? '') });
      await repository.creditGames([{ ...credit, gameId }]);
      lengths.push((await rewards().findById(playerId).lean())?.recentGames.length ?? 0);
    }
    // 33 ids before the first trim (30 plus a step of 3), then 30 again.
    expect(lengths.slice(28, 36)).toEqual([29, 30, 31, 32, 30, 31, 32, 30]);
    expect(Math.max(...lengths)).toBe(32);
    expect(await model<PaidGame>(PaidGame.name).countDocuments({ playerId })).toBe(40);
    for (const gameId of gameIds)
      expect(await repository.creditGames([{ ...credit, gameId }])).toEqual(['already-paid']);
    expect(await rewards().findById(playerId).lean()).toMatchObject({ playedGames: 40 });

    // Held for a minute, no id leaves yet, however many games come.
    const holding = remembering30(60_000);
    const other = randomUUID();
    for (let i = 0; i < 40; i++)
      await holding.creditGames([{ ...credit, playerId: other, gameId: newGame().gameId }]);
    expect((await rewards().findById(other).lean())?.recentGames).toHaveLength(40);
  });

  it('pays a batch of games, a player in several of them and a copy among them, each once', async () => {
    const repository = stack().replicas[0]?.get(RewardsRepository) as RewardsRepository;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const credit = (playerId: string, gameId: string) => ({
      playerId,
      gameId,
      playerName: `B${playerId.slice(0, 6)}`,
      points: 25,
      coins: 10,
      wins: 1,
      titles: [],
    });
    const [g1, g2, g3] = [newGame().gameId, newGame().gameId, newGame().gameId];
    const batch = [credit(a, g1), credit(b, g1), credit(a, g2), credit(c, g2), credit(a, g1), credit(a, g3)];
    const outcomes = await repository.creditGames(batch);
    // The copy of a's g1 (credits 0 and 4): one of the two pays, the other finds it paid.
    expect([outcomes[0], outcomes[4]].sort()).toEqual(['already-paid', 'paid']);
    expect(outcomes.filter((outcome) => outcome === 'paid')).toHaveLength(5);
    expect(await get(a)).toMatchObject({ playedGames: 3, wins: 3, assets: { points: 75, coins: 30 } });
    expect(await get(b)).toMatchObject({ playedGames: 1, assets: { points: 25 } });
    expect(await stack().model<PaidGame>(PaidGame.name).countDocuments({ playerId: a })).toBe(3);
    // The same batch again, as a redelivery: nothing changes.
    expect(await repository.creditGames(batch)).toEqual(batch.map(() => 'already-paid'));
    expect(await get(a)).toMatchObject({ playedGames: 3, assets: { points: 75 } });
  });

  it('pays once when the process died between paying a game and recording it in the ledger', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const game = finished(a, b);
    const service = stack().replicas[0]?.get(PlayerEventsService);
    await service?.onGameEvents([gameEvent(game)]);
    // As if the process had died right after the guarded credit: the game id is in recentGames,
    // its ledger records are not written.
    await stack().model<PaidGame>(PaidGame.name).deleteMany({ gameId: game.gameId });
    // Later games push it out of recentGames before JetStream redelivers the unacked event
    // (the suite remembers 10 game ids per player, each for 2 s past its ledger record, which a
    // trim writes if it is missing); the redelivery must still not pay.
    for (let i = 0; i < 12; i++) await service?.onGameEvents([gameEvent(finished(a, b))]);
    await sleep(HELD_MS + 100);
    await service?.onGameEvents([gameEvent(finished(a, b))]);
    expect((await rewards().findById(a).lean())?.recentGames).not.toContain(game.gameId);
    await service?.onGameEvents([gameEvent(game)]);
    await service?.onGameEvents([gameEvent(game)]);
    expect(await get(a)).toMatchObject({ playedGames: 14, assets: { points: 350, coins: 140 } });
    expect(await get(b)).toMatchObject({ playedGames: 14, assets: { points: 70, coins: 14 } });
  }, 60_000);

  it('pays a dead-lettered game.finished once when it is replayed, however often and after a delivery', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const game = finished(a, b);
    const event = gameEvent(game);
    const { events, infra } = stack();
    const jsm = await events.nc.jetstreamManager();
    const { config } = await jsm.streams.info(Streams.games.name);
    // The publisher's database, with the game's events in a room's outbox.
    const publisher = await mongoose
      .createConnection(mongoUrlFor(infra, uniqueName('publisher')), { serverSelectionTimeoutMS: 10_000 })
      .asPromise();
    try {
      const rooms = publisher.model<OutboxDocument>(
        'Room',
        new Schema({ _id: String, outbox: Schema.Types.Mixed, outboxAt: Date }, { collection: 'rooms' }),
      );
      await rooms.collection.insertOne({
        _id: game.roomId,
        outbox: outboxOf([event]),
        outboxAt: new Date(Date.now() - 10_000),
      } as never);
      const relay = new OutboxRelay(rooms, events, createLogger('publisher', 'silent'), {
        service: 'rooms',
        minAgeMs: 0,
        deadLetterAttempts: 2,
        deadLetterAfterMs: 0,
      });
      // JetStream refuses it (here: too large for the stream) until it is a dead letter.
      await jsm.streams.update(Streams.games.name, { ...config, max_msg_size: 64 });
      await relay.sweep();
      await relay.sweep();
      await jsm.streams.update(Streams.games.name, config);
      const deadLetters = publisher.collection<DeadLetterRecord>(DEAD_LETTERS_COLLECTION);
      const letter = await deadLetters.findOne({ _id: event.id });
      expect(letter).toMatchObject({ type: EventTypes.gameFinished, attempts: 2 });
      expect((await rooms.collection.findOne({ _id: game.roomId } as never))?.['outbox']).toEqual({});
      await drain();
      expect(await rewards().exists({ _id: a })).toBeNull(); // not paid: the event never went out

      // Replayed: paid once.
      expect(await replayDeadLetters(deadLetters, events, () => undefined)).toEqual({
        replayed: 1,
        failed: 0,
      });
      await until(a, (r) => r.playedGames === 1, 'the replayed game');
      // Replayed again (set aside twice): JetStream drops the repeated msg-id.
      await deadLetters.insertOne(letter as DeadLetterRecord);
      expect((await replayDeadLetters(deadLetters, events, () => undefined)).replayed).toBe(1);
      // Replayed once more after the stream's duplicate window: stored again and delivered again.
      await jsm.streams.update(Streams.games.name, { ...config, duplicate_window: nanos(100) });
      await sleep(300);
      await deadLetters.insertOne(letter as DeadLetterRecord);
      const before = (await jsm.consumers.info(Consumers.rewardsGames.stream, Consumers.rewardsGames.durable))
        .delivered.stream_seq;
      expect((await replayDeadLetters(deadLetters, events, () => undefined)).replayed).toBe(1);
      await drain();
      const after = (await jsm.consumers.info(Consumers.rewardsGames.stream, Consumers.rewardsGames.durable))
        .delivered.stream_seq;
      expect(after).toBeGreaterThan(before);
      expect(await get(a)).toMatchObject({ playedGames: 1, assets: { points: 25, coins: 10 } });
      expect(await get(b)).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
    } finally {
      await jsm.streams.update(Streams.games.name, config);
      await publisher.dropDatabase();
      await publisher.close();
    }
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
