import {
  COMMON_MESSAGES,
  EventIds,
  EventTypes,
  type GameFinished,
  gameHistorySchema,
  type GameWon,
  leaderboardSchema,
  type PlayedGame,
  type PlayedGameDetail,
  playedGameDetailSchema,
  type RankedReward,
  REWARD_MESSAGES,
  type RewardView,
} from '@oasis198/contracts';
import {
  aiCommitOf,
  aiNumber,
  MESSAGES,
  type MoveRecord,
  toSpecSeconds,
  verifyGame,
} from '@oasis198/game-rules';
import { makeEvent } from '@oasis198/service-kit';
import { SseClient, waitFor } from '@oasis198/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { newAccount, useAccountsStack } from './testing/accounts-stack';
import { expectExactly } from './testing/exactly';

interface ErrorBody {
  message: string;
  code: string;
}
interface OpenApiSchema {
  $ref?: string;
  type?: string;
  items?: { $ref?: string };
}
interface OpenApiResponse {
  content?: Record<string, { schema?: OpenApiSchema }>;
  headers?: Record<string, { schema?: { type?: string } }>;
}
type Player = { id: string; name: string; token: string; email: string; password: string };

describe('rewards calls through the gateway (SPEC §7) and the events behind them', () => {
  const stack = useAccountsStack();
  const jetstream = () => stack().events;

  const getReward = (id: string) => stack().call<RankedReward & ErrorBody>('GET', `/api/rewards/${id}`);

  async function registered(): Promise<Player> {
    const account = newAccount('r');
    const res = await stack().call<{ _id: string; token: string }>('POST', '/api/users/', { body: account });
    expect(res.status).toBe(201);
    return { ...account, id: res.body._id, token: res.body.token };
  }

  /** The record once the user.registered event has made it. */
  async function rewardOf(
    id: string,
    until: (r: RankedReward) => boolean = () => true,
  ): Promise<RankedReward> {
    return waitFor(
      async () => {
        const res = await getReward(id);
        return res.status === 200 && until(res.body) ? res.body : undefined;
      },
      { timeoutMs: 15_000, what: `the reward of ${id}` },
    );
  }

  let gameCounter = 0;
  function game(
    winner: { id: string; name: string },
    loser: { id: string; name: string },
    options: { endReason?: GameWon['endReason']; duration?: number; gameId?: string } = {},
  ): GameFinished {
    gameCounter += 1;
    const roomId = randomUUID();
    return {
      gameId: options.gameId ?? `${roomId}:${gameCounter}`,
      roomId,
      gameNumber: gameCounter,
      draw: false,
      winner: { ...winner, seat: 'player1' },
      loser: { ...loser, seat: 'player2' },
      endReason: options.endReason ?? 'reached198',
      player1: { id: winner.id, name: winner.name },
      player2: { id: loser.id, name: loser.name },
      duration: options.duration ?? 32,
      playedSeconds: 120,
      aiSeed: 'a5'.repeat(32),
      aiCommit: '5a'.repeat(32),
      specialRandom: 123456,
      moves: 30,
      finishedAt: new Date().toISOString(),
    };
  }
  const publishGame = (data: GameFinished, msgId = EventIds.gameFinished(data.gameId)) =>
    jetstream().publish(makeEvent(EventTypes.gameFinished, msgId, data));
  const person = (p: { id: string; name: string }) => ({ id: p.id, name: p.name });

  describe('records follow the user events', () => {
    it('creates a fresh record on registration (GET /api/rewards/:userId), level derived from points', async () => {
      const user = await registered();
      const reward = await rewardOf(user.id);
      expect(reward).toEqual({
        playerId: user.id,
        playerName: user.name,
        playedGames: 0,
        wins: 0,
        rank: expect.any(Number),
        assets: { points: 0, coins: 0 },
        categories: { bronze: false, silver: false, gold: false, platinum: false },
        championStatus: {
          blitzWinner: false,
          eventsWinner: false,
          cityWinner: false,
          countryWinner: false,
          continentWinner: false,
          worldWinner: false,
        },
        levelStatus: {
          rookie: true,
          challenger: false,
          expert: false,
          master: false,
          legend: false,
          level: 1,
        },
      });
    });

    it('renames the record when the user is renamed (PATCH /api/users/edit)', async () => {
      const user = await registered();
      await rewardOf(user.id);
      expect(
        (await stack().call('PATCH', '/api/users/edit', { token: user.token, body: { name: 'Renamed42' } }))
          .status,
      ).toBe(200);
      const reward = await rewardOf(user.id, (r) => r.playerName === 'Renamed42');
      expect(reward.playerName).toBe('Renamed42');
    });

    it('deletes the record with the user, and a late user.registered does not bring it back', async () => {
      const user = await registered();
      await rewardOf(user.id);
      expect((await stack().call('DELETE', '/api/users/delete', { token: user.token })).status).toBe(200);
      await waitFor(async () => (await getReward(user.id)).status === 404, {
        what: 'the reward to be deleted',
      });

      // Late and duplicated facts about the deleted user, then a marker the consumer handles after them.
      const late = { userId: user.id, name: user.name };
      await jetstream().publish(
        makeEvent(EventTypes.userRegistered, `${EventIds.userRegistered(user.id)}:late`, late),
      );
      await jetstream().publish(
        makeEvent(EventTypes.userRenamed, EventIds.userRenamed(user.id, 'Ghost1', Date.now()), {
          userId: user.id,
          name: 'Ghost1',
        }),
      );
      const marker = { id: randomUUID(), name: 'marker1' };
      await jetstream().publish(
        makeEvent(EventTypes.userRegistered, EventIds.userRegistered(marker.id), {
          userId: marker.id,
          name: marker.name,
        }),
      );
      await rewardOf(marker.id);
      // A game the deleted player "won" pays the loser only.
      const other = { id: randomUUID(), name: 'marker2' };
      await publishGame(game(person(user), other));
      await rewardOf(other.id, (r) => r.playedGames === 1);

      const res = await getReward(user.id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: REWARD_MESSAGES.notFound, code: 'NOT_FOUND' });
    });

    it('catches up after the rewards service was down: the record of a user registered meanwhile appears', async () => {
      await stack().stopRewards();
      const user = await registered();
      expect((await getReward(user.id)).status).toBe(503);
      await stack().startRewards();
      const reward = await rewardOf(user.id);
      expect(reward.playerName).toBe(user.name);
    });
  });

  describe('game.finished', () => {
    it('pays the winner 25 points and 10 coins, the loser 5 and 1, both one played game', async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      await publishGame(game(person(a), person(b)));
      const winner = await rewardOf(a.id, (r) => r.playedGames === 1);
      const loser = await rewardOf(b.id, (r) => r.playedGames === 1);
      expect(winner.assets).toEqual({ points: 25, coins: 10 });
      expect(loser.assets).toEqual({ points: 5, coins: 1 });
      expect(winner.championStatus.blitzWinner).toBe(false);
    });

    it('pays a game once, whether re-published with the same msg-id or another', async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      const finished = game(person(a), person(b));
      expect((await publishGame(finished)).duplicate).toBe(false);
      expect((await publishGame(finished)).duplicate).toBe(true);
      expect((await publishGame(finished, `${EventIds.gameFinished(finished.gameId)}:again`)).duplicate).toBe(
        false,
      );
      // A later game of other players: once it is paid, the consumer has handled the copies too.
      const marker = { id: randomUUID(), name: 'marker3' };
      await publishGame(game(marker, { id: randomUUID(), name: 'marker4' }));
      await rewardOf(marker.id, (r) => r.playedGames === 1);

      expect((await getReward(a.id)).body).toMatchObject({
        playedGames: 1,
        assets: { points: 25, coins: 10 },
      });
      expect((await getReward(b.id)).body).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
    });

    it('gives a loser by timeout or by leaving nothing but the played game', async () => {
      const [a, b, c] = [await registered(), await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id), rewardOf(c.id)]);
      await publishGame(game(person(a), person(b), { endReason: 'timeout' }));
      await publishGame(game(person(a), person(c), { endReason: 'left' }));
      const winner = await rewardOf(a.id, (r) => r.playedGames === 2);
      expect(winner.assets).toEqual({ points: 50, coins: 20 });
      for (const loser of [b, c]) {
        const reward = await rewardOf(loser.id, (r) => r.playedGames === 1);
        expect(reward.assets).toEqual({ points: 0, coins: 0 });
      }
    });

    it('gives the blitz title on a win in a 14-second room, and levels follow the points', async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      await publishGame(game(person(a), person(b), { duration: 14 }));
      const first = await rewardOf(a.id, (r) => r.playedGames === 1);
      expect(first.championStatus.blitzWinner).toBe(true);
      expect((await getReward(b.id)).body.championStatus.blitzWinner).toBe(false);
      for (let i = 0; i < 3; i++) await publishGame(game(person(a), person(b)));
      const after = await rewardOf(a.id, (r) => r.playedGames === 4);
      expect(after.assets.points).toBe(100);
      expect(after.levelStatus).toEqual({
        rookie: true,
        challenger: false,
        expert: false,
        master: false,
        legend: false,
        level: 2,
      });
    });
  });

  describe('GET /api/rewards/', () => {
    it('lists the leaderboard by points (then name), paginated', async () => {
      const alpha = { id: randomUUID(), name: 'lbAlpha' };
      const bravo = { id: randomUUID(), name: 'lbBravo' };
      const charlie = { id: randomUUID(), name: 'lbCharlie' };
      const loser = { id: randomUUID(), name: 'lbLoser' };
      // Charlie 500 points, Alpha and Bravo 400 each (a tie, ordered by name).
      for (let i = 0; i < 20; i++) await publishGame(game(charlie, loser));
      for (let i = 0; i < 16; i++) await publishGame(game(bravo, loser));
      for (let i = 0; i < 16; i++) await publishGame(game(alpha, loser));
      await rewardOf(alpha.id, (r) => r.playedGames === 16);

      // SPEC §7: the answer is a list (of reward views); the total is a header.
      const first = await stack().call<RewardView[]>('GET', '/api/rewards/?page=1&pageSize=2');
      expect(first.status).toBe(200);
      expect(Array.isArray(first.body)).toBe(true);
      expect(first.body.map((r) => r.playerName)).toEqual(['lbCharlie', 'lbAlpha']);
      expectExactly(leaderboardSchema, first.body);
      const total = Number(first.headers.get('x-total-count'));
      expect(total).toBeGreaterThanOrEqual(4);
      const second = await stack().call<RewardView[]>('GET', '/api/rewards/?page=2&pageSize=2');
      expect(second.body[0]?.playerName).toBe('lbBravo');
      expect(Number(second.headers.get('x-total-count'))).toBe(total);
      expect(first.body[0]).toMatchObject({ playerId: charlie.id, assets: { points: 500, coins: 200 } });
      expect(first.body[0]?.levelStatus).toMatchObject({ level: 6, challenger: true });

      const all = await stack().call<RewardView[]>('GET', '/api/rewards/');
      expect(all.body).toHaveLength(Math.min(total, 20));
      const points = all.body.map((r) => r.assets.points);
      expect(points).toEqual([...points].sort((x, y) => y - x));

      // Past the last page: an empty list, the same total.
      const beyond = await stack().call<RewardView[]>('GET', `/api/rewards/?page=${total + 1}&pageSize=1`);
      expect(beyond.status).toBe(200);
      expect(beyond.body).toEqual([]);
      expect(Number(beyond.headers.get('x-total-count'))).toBe(total);
    });

    const pageMessage = 'page must be a whole number of at least 1.';
    const pageSizeMessage = 'pageSize must be a whole number from 1 to 100.';
    it.each([
      ['page=0', pageMessage],
      ['page=-1', pageMessage],
      ['page=1.5', pageMessage],
      ['page=abc', pageMessage],
      ['page=', pageMessage],
      ['page=1e400', pageMessage],
      ['page=1&page=2', pageMessage],
      ['pageSize=0', pageSizeMessage],
      ['pageSize=101', pageSizeMessage],
      ['pageSize=2.5', pageSizeMessage],
      ['pageSize=abc', pageSizeMessage],
      ['pageSize=1e3', pageSizeMessage],
      ['pageSize=99999999999999999999', pageSizeMessage],
      ['sort=points', 'property sort should not exist'],
    ])('refuses ?%s with a clear 400', async (query, message) => {
      const res = await stack().call<ErrorBody>('GET', `/api/rewards/?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message, code: 'VALIDATION' });
    });

    it.each(['1000001', '9007199254740993', '99999999999999999999', '1e300'])(
      'answers a page far past the end (?page=%s) with an empty list, never an error',
      async (page) => {
        const res = await stack().call<RewardView[]>('GET', `/api/rewards/?page=${page}&pageSize=100`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
        expect(Number(res.headers.get('x-total-count'))).toBeGreaterThan(0);
      },
    );

    it('documents the list and its X-Total-Count header in the OpenAPI document', async () => {
      const doc = await stack().call<{
        paths: Record<
          string,
          Record<
            string,
            {
              responses: Record<string, OpenApiResponse>;
              parameters?: { name: string; schema?: { type?: string } }[];
            }
          >
        >;
        components: { schemas: Record<string, OpenApiSchema> };
      }>('GET', '/api/docs/openapi.json');
      const list = doc.body.paths['/api/rewards']?.['get'];
      // Whole numbers are integers in the document, as the gateway checks them.
      const types = Object.fromEntries((list?.parameters ?? []).map((p) => [p.name, p.schema?.type]));
      expect(types).toMatchObject({ page: 'integer', pageSize: 'integer' });
      const ok = list?.responses['200'];
      // A list of ranked records, from contracts' leaderboardSchema.
      const schema = ok?.content?.['application/json']?.schema;
      expect(schema?.$ref).toBe('#/components/schemas/Leaderboard');
      expect(doc.body.components.schemas['Leaderboard']).toEqual({
        type: 'array',
        items: { $ref: '#/components/schemas/RankedReward' },
      });
      expect(ok?.headers?.['X-Total-Count']?.schema?.type).toBe('integer');
    });
  });

  describe('GET /api/rewards/:userId', () => {
    it('answers 404 for a player without a record', async () => {
      const res = await getReward('000000000000000000000000');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: REWARD_MESSAGES.notFound, code: 'NOT_FOUND' });
    });

    it('answers the wins and the rank, the same rank the leaderboard shows, and moves the winner up', async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      const before = (await getReward(a.id)).body;
      await publishGame(game(person(a), person(b)));
      const after = await rewardOf(a.id, (r) => r.playedGames === 1);
      expect(after).toMatchObject({ wins: 1, assets: { points: 25 } });
      expect(after.rank).toBeLessThan(before.rank);
      const row = await stack().call<RankedReward[]>('GET', `/api/rewards/?page=${after.rank}&pageSize=1`);
      expect(row.body).toMatchObject([{ rank: after.rank }]);
      expect((await getReward(b.id)).body).toMatchObject({ wins: 0, assets: { points: 5 } });
    });
  });

  describe('the leaderboard stream (GET /api/rewards/stream)', () => {
    it('tells a listener when a game is paid', async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      const sse = await SseClient.open(`${stack().baseUrl}/api/rewards/stream`);
      try {
        expect(sse.status).toBe(200);
        expect(sse.headers?.get('content-type')).toMatch(/^text\/event-stream/);
        await publishGame(game(person(a), person(b)));
        // Each notice is a cue to refetch. The first may be an earlier test's game (notices are
        // folded into one a second), so this refetches on each one until a refetch shows this
        // game paid: a notice must follow its payment, or the wait for one times out.
        for (let seen = 0; ;) {
          await sse.until((c) => c.of('leaderboard').length > seen, 'a leaderboard notice');
          seen = sse.of('leaderboard').length;
          if ((await getReward(a.id)).body.playedGames === 1) break;
        }
        expect(new Set(sse.of('leaderboard').map((notice) => JSON.stringify(notice)))).toEqual(
          new Set(['{}']),
        );
        expect((await getReward(a.id)).body).toMatchObject({ playedGames: 1, wins: 1 });
      } finally {
        sse.close();
      }
    });
  });

  describe('GET /api/rewards/:userId/games', () => {
    it("lists a player's finished games, newest first, and serves one with its moves to replay", async () => {
      const [a, b] = [await registered(), await registered()];
      await Promise.all([rewardOf(a.id), rewardOf(b.id)]);
      const aiSeed = randomBytes(32).toString('hex');
      const moves: MoveRecord[] = [0, 1, 2].map((i) => ({
        player: i % 2 === 0 ? 'player1' : 'player2',
        number: 8,
        option: 'plain',
        aiNumber: aiNumber(aiSeed, i),
        total: 8 * (i + 1),
        at: toSpecSeconds(Date.now()) - 3 + i,
      }));
      const first = {
        ...game(person(a), person(b), { endReason: 'left' }),
        moves: 3,
        moveList: moves,
        aiSeed,
        aiCommit: aiCommitOf(aiSeed),
      };
      const second = game(person(b), person(a), { endReason: 'timeout' });
      second.finishedAt = new Date(Date.parse(first.finishedAt) + 1000).toISOString();
      await publishGame(first);
      await publishGame(second);
      const list = await waitFor(
        async () => {
          const res = await stack().call<PlayedGame[]>('GET', `/api/rewards/${a.id}/games`);
          return res.body.length === 2 && res.body[1]?.verifiable ? res : undefined;
        },
        { timeoutMs: 15_000, what: 'both games in the history' },
      );
      expect(list.status).toBe(200);
      expectExactly(gameHistorySchema, list.body);
      expect(list.body.map((g) => [g.gameId, g.result, g.endReason, g.opponent.name])).toEqual([
        [second.gameId, 'lost', 'timeout', b.name],
        [first.gameId, 'won', 'left', b.name],
      ]);
      const detail = await stack().call<PlayedGameDetail>(
        'GET',
        `/api/rewards/${a.id}/games/${encodeURIComponent(first.gameId)}`,
      );
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({ gameId: first.gameId, aiSeed, moves: 3, moveList: moves });
      expectExactly(playedGameDetailSchema, detail.body);
      expect(verifyGame(aiSeed, detail.body.aiCommit as string, detail.body.moveList ?? []).valid).toBe(true);
    });

    it('answers 404 for an unknown player or a game not in their history, 405 for a write', async () => {
      const user = await registered();
      await rewardOf(user.id);
      expect((await stack().call('GET', `/api/rewards/${user.id}/games`)).body).toEqual([]);
      for (const path of [
        '/api/rewards/000000000000000000000000/games',
        `/api/rewards/${'x'.repeat(65)}/games`,
        `/api/rewards/${user.id}/games/room-x%3A1`,
        `/api/rewards/${user.id}/games/${'x'.repeat(129)}`,
      ]) {
        const res = await stack().call<ErrorBody>('GET', path);
        expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
      expect((await stack().call('POST', `/api/rewards/${user.id}/games`)).status).toBe(405);
    });

    it('documents the history, a game with its moves, the rank and the stream in the OpenAPI document', async () => {
      const doc = await stack().call<{ paths: Record<string, Record<string, unknown>> }>(
        'GET',
        '/api/docs/openapi.json',
      );
      for (const path of [
        '/api/rewards/{userId}/games',
        '/api/rewards/{userId}/games/{gameId}',
        '/api/rewards/{userId}',
        '/api/rewards/stream',
      ]) {
        expect([path, Object.keys(doc.body.paths[path] ?? {})]).toEqual([path, ['get']]);
      }
      expect(JSON.stringify(doc.body.paths['/api/rewards/{userId}'])).toMatch(/schemas\/RankedReward"/);
      expect(JSON.stringify(doc.body.paths['/api/rewards/{userId}/games/{gameId}'])).toMatch(
        /schemas\/PlayedGameDetail"/,
      );
    });
  });

  describe('POST /api/rewards/', () => {
    it("returns the caller's existing record unchanged (idempotent)", async () => {
      const user = await registered();
      await rewardOf(user.id);
      for (let i = 0; i < 2; i++) {
        const res = await stack().call<RewardView>('POST', '/api/rewards/', {
          token: user.token,
          body: { playerId: user.id, playerName: user.name },
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ playerId: user.id, playerName: user.name, playedGames: 0 });
      }
    });

    it('creates the record if the event has not (yet) done so', async () => {
      const user = await registered();
      await rewardOf(user.id);
      // Remove it as its owner may, then create it again.
      expect(
        (await stack().call('DELETE', `/api/rewards/${user.id}/delete`, { token: user.token })).status,
      ).toBe(200);
      const res = await stack().call<RewardView>('POST', '/api/rewards/', {
        token: user.token,
        body: { playerId: user.id, playerName: user.name },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        playerId: user.id,
        playerName: user.name,
        assets: { points: 0, coins: 0 },
      });
      expect((await getReward(user.id)).status).toBe(200);
    });

    it.each([
      [
        'no token',
        undefined,
        (u: Player) => ({ playerId: u.id, playerName: u.name }),
        401,
        COMMON_MESSAGES.unauthorized,
      ],
      [
        "another user's id",
        'own',
        () => ({ playerId: '000000000000000000000000', playerName: 'Someone1' }),
        403,
        COMMON_MESSAGES.forbiddenOwner,
      ],
      [
        "another player's name",
        'own',
        (u: Player) => ({ playerId: u.id, playerName: 'Impostor1' }),
        403,
        REWARD_MESSAGES.notYourName,
      ],
      [
        'an invalid playerName',
        'own',
        (u: Player) => ({ playerId: u.id, playerName: 'x!' }),
        400,
        MESSAGES.username,
      ],
      [
        'points in the body',
        'own',
        (u: Player) => ({ playerId: u.id, playerName: u.name, assets: { points: 1e6 } }),
        400,
        'property assets should not exist',
      ],
    ])('refuses %s', async (_what, auth, body, status, message) => {
      const user = await registered();
      const res = await stack().call<ErrorBody>('POST', '/api/rewards/', {
        token: auth ? user.token : undefined,
        body: body(user),
      });
      expect(res.status).toBe(status);
      expect(res.body.message).toBe(message);
    });
  });

  describe('PATCH /api/rewards/:id/edit', () => {
    it('copies the caller’s new username to their own record and answers { reward }', async () => {
      const user = await registered();
      await rewardOf(user.id);
      const renamed = await stack().call('PATCH', '/api/users/edit', {
        token: user.token,
        body: { name: 'Shown1' },
      });
      expect(renamed.status).toBe(200);
      const res = await stack().call<{ reward: RewardView }>('PATCH', `/api/rewards/${user.id}/edit`, {
        token: user.token,
        body: { playerName: 'Shown1' },
      });
      expect(res.status).toBe(200);
      expect(res.body.reward).toMatchObject({ playerId: user.id, playerName: 'Shown1' });
      expect((await getReward(user.id)).body.playerName).toBe('Shown1');
    });

    it.each([
      ['no token', false, 'self', { playerName: 'Valid12' }, 401, COMMON_MESSAGES.unauthorized],
      [
        "another user's reward",
        true,
        'other',
        { playerName: 'Valid12' },
        403,
        COMMON_MESSAGES.forbiddenOwner,
      ],
      [
        "another player's name on the caller's own record (impersonation)",
        true,
        'self',
        { playerName: 'Valid12' },
        403,
        REWARD_MESSAGES.notYourName,
      ],
      ['an invalid playerName', true, 'self', { playerName: 'ab' }, 400, MESSAGES.username],
      [
        'points',
        true,
        'self',
        { playerName: 'Valid12', points: 999 },
        400,
        'property points should not exist',
      ],
      [
        'coins and levels',
        true,
        'self',
        { assets: { coins: 9 }, levelStatus: { level: 50 } },
        400,
        'property assets should not exist',
      ],
      [
        'a title',
        true,
        'self',
        { championStatus: { worldWinner: true } },
        400,
        'property championStatus should not exist',
      ],
    ])('refuses %s', async (_what, withToken, whose, body, status, message) => {
      const [user, other] = [await registered(), await registered()];
      await Promise.all([rewardOf(user.id), rewardOf(other.id)]);
      const target = whose === 'self' ? user.id : other.id;
      const res = await stack().call<ErrorBody>('PATCH', `/api/rewards/${target}/edit`, {
        token: withToken ? user.token : undefined,
        body,
      });
      expect(res.status).toBe(status);
      expect(res.body.message).toBe(message);
      const unchanged = (await getReward(target)).body;
      expect(unchanged.assets).toEqual({ points: 0, coins: 0 });
      expect(unchanged.playerName).toBe(whose === 'self' ? user.name : other.name);
    });
  });

  describe('DELETE /api/rewards/:id/delete', () => {
    it("deletes the caller's own record; then 404", async () => {
      const user = await registered();
      await rewardOf(user.id);
      const res = await stack().call('DELETE', `/api/rewards/${user.id}/delete`, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: REWARD_MESSAGES.deleted });
      expect((await getReward(user.id)).status).toBe(404);
      expect(
        (await stack().call('DELETE', `/api/rewards/${user.id}/delete`, { token: user.token })).status,
      ).toBe(404);
    });

    it("refuses another user's record with 403 and a missing token with 401", async () => {
      const [user, other] = [await registered(), await registered()];
      await rewardOf(other.id);
      const forbidden = await stack().call<ErrorBody>('DELETE', `/api/rewards/${other.id}/delete`, {
        token: user.token,
      });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.message).toBe(COMMON_MESSAGES.forbiddenOwner);
      const anonymous = await stack().call<ErrorBody>('DELETE', `/api/rewards/${other.id}/delete`);
      expect(anonymous.status).toBe(401);
      expect((await getReward(other.id)).status).toBe(200);
    });
  });
});
