import {
  Broadcasts,
  type EventEnvelope,
  EventIds,
  EventTypes,
  type GameFinished,
  type LeaderboardChanged,
  type PlayedGame,
  type PlayedGameDetail,
  type RankedReward,
  Requests,
  type RewardPage,
} from '@oasis198/contracts';
import { aiCommitOf, aiNumber, type MoveRecord, toSpecSeconds } from '@oasis198/game-rules';
import { createService, makeEvent } from '@oasis198/service-kit';
import { waitFor } from '@oasis198/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { GameHistoryRepository } from './game-history/game-history.repository';
import { PlayerGame, playerGameId, PlayerHistory } from './game-history/game-history.schema';
import { historyResults } from './game-history/history-entries';
import { wonGame } from './player-events/game-finished.fixtures';
import { freshReward, Reward } from './rewards/reward.schema';
import { rewardsDefinition } from './rewards.definition';
import { useRewardsStack } from './testing/rewards-stack';

/** The leaderboard (wins, ranks, pages, the live notice) and each player's game history. */
describe('rewards service: leaderboard and game history', () => {
  const KEPT = 3;
  const stack = useRewardsStack('rewards-lb', { GAME_HISTORY_KEPT: String(KEPT) });
  const announced: LeaderboardChanged[] = [];
  beforeAll(() => {
    stack().events.subscribe(Broadcasts.leaderboardChanged, (data) =>
      announced.push(data as LeaderboardChanged),
    );
  });

  const model = <T>(name: string) => stack().model<T>(name);
  const get = (userId: unknown) => stack().rpc.request<RankedReward>(Requests.rewards.get, { userId });
  const list = (page: unknown, pageSize: unknown) =>
    stack().rpc.request<RewardPage>(Requests.rewards.list, { page, pageSize });
  const games = (userId: unknown) => stack().rpc.request<PlayedGame[]>(Requests.rewards.games, { userId });
  const game = (userId: unknown, gameId: unknown) =>
    stack().rpc.request<PlayedGameDetail>(Requests.rewards.game, { userId, gameId });
  const publish = (event: EventEnvelope) => stack().events.publish(event);
  const drain = () => stack().drain();

  const seed = () => randomBytes(32).toString('hex');
  const person = (name: string) => ({ id: randomUUID(), name });
  let minute = 0;

  /**
   * A finished game of a new room: `winner` (player 1) beat `loser` by reaching 198 in `moves` moves.
   * Its game.finished carries the moves unless `withMoves` is false (as events written before did).
   */
  function played(
    winner: { id: string; name: string },
    loser: { id: string; name: string },
    moves = 4,
    withMoves = true,
  ) {
    const roomId = `room-${randomUUID()}`;
    const aiSeed = seed();
    const finishedAtMs = Date.UTC(2026, 0, 1) + ++minute * 60_000;
    const moveList: MoveRecord[] = Array.from({ length: moves }, (_, i) => ({
      player: i % 2 === 0 ? 'player1' : 'player2',
      number: 9,
      option: 'plain',
      aiNumber: aiNumber(aiSeed, i),
      total: 9 * (i + 1),
      at: toSpecSeconds(finishedAtMs) - moves + i,
    }));
    const result: GameFinished = wonGame(winner, loser, {
      gameId: `${roomId}:1`,
      roomId,
      gameNumber: 1,
      moves,
      ...(withMoves ? { moveList } : {}),
      aiSeed,
      aiCommit: aiCommitOf(aiSeed),
      finishedAt: new Date(finishedAtMs).toISOString(),
    });
    return {
      gameId: result.gameId,
      moveList,
      finished: (copy = '') =>
        makeEvent(EventTypes.gameFinished, EventIds.gameFinished(result.gameId) + copy, result),
    };
  }

  describe('the leaderboard', () => {
    it('pays each win once across replicas, however many copies of the game arrive', async () => {
      const [a, b] = [person('winsA1'), person('winsB1')];
      const games = [played(a, b), played(a, b), played(b, a)];
      for (const g of games) {
        await publish(g.finished());
        await publish(g.finished(':copy'));
      }
      await drain();
      expect(await get(a.id)).toMatchObject({ playedGames: 3, wins: 2, assets: { points: 55 } });
      expect(await get(b.id)).toMatchObject({ playedGames: 3, wins: 1, assets: { points: 35 } });
      // Each payment is announced once, none for the copies (two replicas may share a game's two).
      await waitFor(async () => announced.filter((n) => n.gameId === games[2]?.gameId).length > 0, {
        what: 'the notices',
      });
      for (const g of games) {
        const paid = announced.filter((n) => n.gameId === g.gameId).flatMap((n) => n.playerIds);
        expect([g.gameId, paid.sort()]).toEqual([g.gameId, [a.id, b.id].sort()]);
      }
    });

    it('ranks by points, then wins, then name, ties shared, the same in the list and in GET, page by page', async () => {
      // Far ahead of anyone else this suite makes: ranks 1 to 6.
      const top = 1_000_000;
      const seeded = [
        ['e', 'lbEve1', top + 20, 0],
        ['b', 'lbBob1', top, 2],
        ['a', 'lbAmy1', top, 1],
        ['d', 'lbAmy1', top, 1],
        ['c', 'lbCid1', top, 1],
        ['f', 'lbFay1', top - 1, 9],
      ] as const;
      const ids = Object.fromEntries(seeded.map(([key]) => [key, randomUUID()]));
      for (const [key, name, points, wins] of seeded) {
        await model<Reward>(Reward.name).create({
          ...freshReward(ids[key] as string, name, 1),
          wins,
          assets: { points, coins: 0 },
        });
      }
      const expected = [
        ['e', 1],
        ['b', 2],
        ['a', 3],
        ['d', 3],
        ['c', 5],
        ['f', 6],
      ];
      const byKey = (rows: RankedReward[]) =>
        rows.map((r) => [Object.keys(ids).find((k) => ids[k] === r.playerId), r.rank]);
      const firstPage = await list(1, 6);
      expect(byKey(firstPage.rewards).map(([, rank]) => rank)).toEqual(expected.map(([, rank]) => rank));
      // In that order, but 'a' and 'd' tie completely: the id orders them, so either may come first.
      const keys = byKey(firstPage.rewards).map(([key]) => key as string);
      expect([...keys.slice(0, 2), ...keys.slice(2, 4).sort(), ...keys.slice(4)]).toEqual(
        expected.map(([key]) => key),
      );
      expect(firstPage.total).toBeGreaterThanOrEqual(6);
      for (const reward of firstPage.rewards) expect((await get(reward.playerId)).rank).toBe(reward.rank);

      // Pages of 2 give the same order and ranks, the tie cut by a page boundary included.
      const paged: RankedReward[] = [];
      for (let page = 1; page <= 3; page++) paged.push(...(await list(page, 2)).rewards);
      expect(paged.map((r) => [r.playerId, r.rank])).toEqual(
        firstPage.rewards.map((r) => [r.playerId, r.rank]),
      );
      const pageTwo = (await list(2, 3)).rewards;
      expect(pageTwo[0]?.rank).toBe(3);
    });

    it('ranks a record stored before wins existed as 0 wins, once a replica has started', async () => {
      // Both just behind the six above: the old one first by name, once it counts as 0 wins.
      const [old, fresh] = [randomUUID(), randomUUID()];
      const { wins: _wins, ...withoutWins } = freshReward(old, 'lbAaa1', 1);
      await model<Reward>(Reward.name).collection.insertOne({
        ...withoutWins,
        assets: { points: 999_990, coins: 0 },
      } as never);
      await model<Reward>(Reward.name).create({
        ...freshReward(fresh, 'lbZzz1', 1),
        assets: { points: 999_990, coins: 0 },
      });
      const extra = (await createService(rewardsDefinition, stack().env)).app;
      try {
        expect(await get(old)).toMatchObject({ wins: 0, rank: 7 });
        expect(await get(fresh)).toMatchObject({ wins: 0, rank: 8 });
        expect((await list(4, 2)).rewards.map((r) => [r.playerId, r.rank])).toEqual([
          [old, 7],
          [fresh, 8],
        ]);
      } finally {
        await extra.close();
      }
    });

    it('refuses a bad page or page size (400) and an id that names no record (404)', async () => {
      for (const [page, pageSize] of [
        [0, 20],
        [1.5, 20],
        ['2', 20],
        [1, 0],
        [1, 101],
      ]) {
        await expect(list(page, pageSize)).rejects.toMatchObject({ code: 'VALIDATION' });
      }
      for (const id of ['nobody', '', 'x'.repeat(65), 42, { $gt: '' }, 'ai:room1']) {
        await expect(get(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
    });
  });

  describe('the game history', () => {
    /** The winner's side of a game, as the history consumer records it. */
    const firstSide = (data: GameFinished) =>
      historyResults(data)[0] as ReturnType<typeof historyResults>[number];

    it('lists both players’ side of a game, with its moves, from game.finished', async () => {
      const [a, b] = [person('histA1'), person('histB1')];
      const g = played(a, b, 6);
      await publish(g.finished());
      await drain();
      expect(await games(a.id)).toEqual([
        expect.objectContaining({
          gameId: g.gameId,
          opponent: b,
          seat: 'player1',
          result: 'won',
          endReason: 'reached198',
          moves: 6,
          verifiable: true,
        }),
      ]);
      expect(await games(b.id)).toMatchObject([{ opponent: a, result: 'lost', seat: 'player2' }]);
      const detail = await game(b.id, g.gameId);
      expect(detail.moveList).toEqual(g.moveList);
      expect(detail.aiCommit).toBe(aiCommitOf(detail.aiSeed as string));
    });

    it('changes nothing when the events come again, and keeps the last GAME_HISTORY_KEPT games', async () => {
      const [a, b] = [person('keepA1'), person('keepB1')];
      const all = Array.from({ length: KEPT + 2 }, () => played(a, b));
      for (const g of all) {
        await publish(g.finished());
      }
      await drain();
      const newest = all
        .slice(-KEPT)
        .reverse()
        .map((g) => g.gameId);
      expect((await games(a.id)).map((g) => g.gameId)).toEqual(newest);
      const stored = await model<PlayerGame>(PlayerGame.name).find({ playerId: a.id }).lean();

      // Copies of every event, the oldest games among them: the history stays exactly as it was.
      for (const g of all) await publish(g.finished(':again'));
      await drain();
      expect(await model<PlayerGame>(PlayerGame.name).find({ playerId: a.id }).lean()).toEqual(stored);
      expect((await games(a.id)).every((g) => g.verifiable)).toBe(true);
    });

    /** The player's list and stored games are the last KEPT of `all` (in the order played). */
    async function expectNewestKept(playerId: string, all: readonly { gameId: string }[]): Promise<void> {
      const newest = all
        .slice(-KEPT)
        .reverse()
        .map((g) => g.gameId);
      expect((await games(playerId)).map((g) => g.gameId)).toEqual(newest);
      const ids = (await model<PlayerGame>(PlayerGame.name).find({ playerId }).lean()).map((g) => g.gameId);
      expect(ids.sort()).toEqual([...newest].sort());
    }

    it('keeps every result when one player’s games end at once on both replicas', async () => {
      const a = person('raceA1');
      await model<Reward>(Reward.name).create(freshReward(a.id, a.name, 1));
      const all = Array.from({ length: KEPT + 2 }, () => played(a, person('raceB1')));
      const repositories = stack().replicas.map((app) => app.get(GameHistoryRepository));
      const results = all.map((g) => firstSide(g.finished().data));
      const written = await Promise.all(
        results.map((result, i) => (repositories[i % 2] as GameHistoryRepository).recordResults([result])),
      );
      expect(written.filter((recorded) => recorded.length > 0).length).toBeGreaterThanOrEqual(KEPT);
      await expectNewestKept(a.id, all);
    });

    it('records a batch in which one player finished many games, a copy among them, as one at a time would', async () => {
      const a = person('batchA1');
      await model<Reward>(Reward.name).create(freshReward(a.id, a.name, 1));
      const all = Array.from({ length: KEPT + 2 }, () => played(a, person('batchB1')));
      const results = all.map((g) => firstSide(g.finished().data));
      const repository = stack().replicas[0]?.get(GameHistoryRepository) as GameHistoryRepository;
      const recorded = await repository.recordResults([
        ...results,
        results[KEPT] as (typeof results)[number],
      ]);
      // Each game once; the oldest two were recorded, then let go for newer ones of the same batch.
      expect(recorded).toHaveLength(KEPT + 2);
      await expectNewestKept(a.id, all);
    });

    it('lists and keeps the games a player had before their history had a list of its own', async () => {
      const [a, b] = [person('oldA1'), person('oldB1')];
      await model<Reward>(Reward.name).create(freshReward(a.id, a.name, 1));
      const before = [played(a, b), played(a, b)];
      // As the earlier code stored them: the games only, found by player.
      for (const g of before) {
        const { moveList, ...fields } = firstSide(g.finished().data);
        await model<PlayerGame>(PlayerGame.name).collection.insertOne({
          _id: playerGameId(a.id, g.gameId),
          ...fields,
          moveList: JSON.stringify(moveList),
          verifiable: true,
        } as never);
      }
      expect((await games(a.id)).map((g) => g.gameId)).toEqual(before.map((g) => g.gameId).reverse());
      expect(await model<PlayerHistory>(PlayerHistory.name).countDocuments({ _id: a.id })).toBe(0);

      const after = [played(a, b), played(a, b)];
      for (const g of after) await publish(g.finished());
      await drain();
      const newest = [...before, ...after]
        .slice(-KEPT)
        .reverse()
        .map((g) => g.gameId);
      expect((await games(a.id)).map((g) => g.gameId)).toEqual(newest);
      const [oldest, kept] = before as [ReturnType<typeof played>, ReturnType<typeof played>];
      expect((await game(a.id, kept.gameId)).moveList).toEqual(kept.moveList);
      await expect(game(a.id, oldest.gameId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it("starts a new player's list with their record, so their games need no search by player", async () => {
      const [a, b] = [person('newA1'), person('newB1')];
      await publish(
        makeEvent(EventTypes.userRegistered, EventIds.userRegistered(a.id), { userId: a.id, name: a.name }),
      );
      await drain();
      const histories = model<PlayerHistory>(PlayerHistory.name);
      expect(await histories.findById(a.id).lean()).toMatchObject({ games: '[]', version: 1 });
      const g = played(a, b);
      await publish(g.finished());
      await drain();
      expect((await games(a.id)).map((entry) => entry.gameId)).toEqual([g.gameId]);
      expect(await histories.findById(a.id).lean()).toMatchObject({ version: 2 });
    });

    it("deletes a player's history with the account; a late game does not bring it back", async () => {
      const [gone, other] = [person('goneA1'), person('goneB1')];
      await publish(played(gone, other).finished());
      await drain();
      expect(await games(gone.id)).toHaveLength(1);
      await publish(makeEvent(EventTypes.userDeleted, EventIds.userDeleted(gone.id), { userId: gone.id }));
      const late = played(other, gone);
      await publish(late.finished());
      await drain();
      await expect(games(gone.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await model<PlayerGame>(PlayerGame.name).countDocuments({ playerId: gone.id })).toBe(0);
      expect(await games(other.id)).toHaveLength(2);
    });

    it('answers 404 for a player without a record or a game not in their history', async () => {
      const [a, b] = [person('missA1'), person('missB1')];
      const g = played(a, b, 4, false);
      await publish(g.finished());
      await drain();
      for (const id of ['nobody', '', 'x'.repeat(65), 7]) {
        await expect(games(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
      for (const gameId of ['room-x:1', '', 'x'.repeat(129), 7]) {
        await expect(game(a.id, gameId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
      // Its result is in; its moves are not (its game.finished did not carry them).
      expect(await game(a.id, g.gameId)).toMatchObject({ verifiable: false, moveList: null });
    });
  });
});
