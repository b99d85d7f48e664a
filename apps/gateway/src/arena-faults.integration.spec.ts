import {
  ARENA_PRIZES,
  type ArenaOutcome,
  ARENA_SCORE,
  type EventArenaResponse,
  type GameFinished,
  EventTypes,
  isAbortedFinish,
  type RewardView,
  type RoomView,
  Streams,
} from '@oasis198/contracts';
import { rewardFor } from '@oasis198/game-rules';
import { createLogger, JetStreamService, makeEvent, natsServers } from '@oasis198/service-kit';
import {
  recordEvents,
  serviceTestEnv,
  type ServiceProcess,
  startServiceProcess,
  uniqueName,
  waitFor,
} from '@oasis198/testing';
import { connect, type NatsConnection } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Player, useGameStack } from './testing/game-stack';

const EVERY_MS = 45_000;
const DURATION_MS = 25_000;
const EVENT = '/api/tournaments/events/event-9';
const PLAYERS = 6;

// An arena through the whole back end with 2 tournaments replicas and 2 rooms replicas; mid-arena
// one of each is SIGKILLed, of tournaments the lease holder. Whatever the failover does, nobody
// sits in two games at once, each finished game is scored once (the final standings equal the
// games recorded), and the prizes and the games are paid once (each account's coins and titles).
// At file level, so the suite's afterAll (its processes stopped, its NATS connection closed) runs
// before the stack's servers stop: a connection closed while reconnecting keeps Jest waiting.
const stack = useGameStack();

describe('an arena through a tournaments and a rooms crash', () => {
  let nc: NatsConnection;
  const tournaments: ServiceProcess[] = [];
  let roomsReplica: ServiceProcess | undefined;

  beforeAll(async () => {
    const infra = stack().infra;
    nc = await connect({ servers: natsServers(infra.natsUrl) });
    const env = serviceTestEnv(infra, 'tournaments', {
      SHUTDOWN_GRACE_MS: '200',
      EVENT_2_EVERY_MS: '0',
      EVENT_6_EVERY_MS: '0',
      EVENT_9_EVERY_MS: String(EVERY_MS),
      EVENT_9_DURATION_MS: String(DURATION_MS),
      // Past the ack waits (rooms' projector 30 s, then tournaments' 10 s): a game finished in the
      // crash can reach the standings that late, and they must wait for it, as in production.
      ARENA_SETTLE_MAX_MS: '60000',
      ARENA_TICK_MS: '100',
      ARENA_LEASE_MS: '1000',
      ARENA_BUSY_RETRY_MS: '1000',
    });
    const [a, b, rooms] = await Promise.all([
      startServiceProcess('tournaments', env),
      startServiceProcess('tournaments', env),
      stack().startRoomsReplica(),
    ]);
    tournaments.push(a, b);
    roomsReplica = rooms;
  }, 120_000);

  afterAll(async () => {
    for (const t of tournaments) await t.stop().catch(() => undefined);
    await roomsReplica?.stop().catch(() => undefined);
    await nc?.close();
  }, 60_000);

  it('pairs nobody twice, scores each game once and pays each prize once', async () => {
    const games = await recordEvents(nc, Streams.games.name);
    const players: Player[] = [];
    // One at a time, and again after a 503: a busy machine's auth answers slowly.
    while (players.length < PLAYERS) {
      const player = await stack()
        .register('ar')
        .catch(() => undefined);
      if (player) players.push(player);
      else await sleep(500);
    }
    const before = new Map<string, number>();
    for (const p of players) before.set(p.id, (await coinsOf(p.id)) ?? 0);

    // Join in the pause before an arena, so that all of them play it from its start.
    await waitFor(
      async () => Date.now() % EVERY_MS >= DURATION_MS + 500 && Date.now() % EVERY_MS < EVERY_MS - 5000,
      { timeoutMs: EVERY_MS, what: 'a pause between arenas' },
    );
    for (const p of players) {
      const joined = await stack().call('POST', `${EVENT}/join`, { token: p.token });
      expect(joined.status).toBe(200);
    }
    const start = Math.ceil(Date.now() / EVERY_MS) * EVERY_MS;
    const end = start + DURATION_MS;
    const doubles: string[] = [];
    const ours = (data: unknown) => players.some((p) => p.id === (data as GameFinished).player1.id);
    const bots = players.map((p) => bot(p, end, doubles));

    // Mid-arena, once games are being played: one replica of each dies where it stands, the
    // tournaments one the arenas' lease holder, whose openings are in flight.
    await sleep(Math.max(0, start + 8000 - Date.now()));
    const holder = await leaseHolder();
    await Promise.all([holder.kill(), stack().stopRooms({ kill: true })]);
    // A consumer killed before its ack gets the event again: the first finished game, redelivered.
    const first = await waitFor(
      async () => (await games.events()).find((e) => e.type === EventTypes.gameFinished && ours(e.data)),
      { timeoutMs: 20_000, what: 'a finished arena game' },
    );
    const events = new JetStreamService(
      { servers: natsServers(stack().infra.natsUrl), name: 'arena-faults' },
      createLogger('arena-faults', 'silent'),
    );
    await events.connect();
    await events.publish(
      makeEvent(EventTypes.gameFinished, uniqueName('redelivered'), first.data as GameFinished),
    );
    await events.close();
    await Promise.all(bots);

    // The end: final standings, then the prizes.
    const final = await waitFor(
      async () => {
        const res = await stack().call<EventArenaResponse>('GET', EVENT);
        const previous = res.body.previous;
        return previous?.status === 'ended' && Date.parse(previous.startsAt) === start ? previous : undefined;
      },
      { timeoutMs: 90_000, what: 'the final standings' },
    );

    const finished = new Map<string, GameFinished>();
    for (const event of await games.events()) {
      if (event.type !== EventTypes.gameFinished) continue;
      const game = event.data as GameFinished;
      if (players.some((p) => p.id === game.player1.id)) finished.set(game.gameId, game);
    }
    expect(finished.size).toBeGreaterThan(0);

    // Nobody in two games at once (playedSeconds is whole seconds: 1.5 s of slack).
    expect(doubles).toEqual([]);
    for (const p of players) {
      const spans = [...finished.values()]
        .filter((g) => g.player1.id === p.id || g.player2.id === p.id)
        .map((g) => [Date.parse(g.finishedAt) - g.playedSeconds * 1000, Date.parse(g.finishedAt)] as const)
        .sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < spans.length; i++) {
        expect(spans[i]?.[0] ?? 0).toBeGreaterThan((spans[i - 1]?.[1] ?? 0) - 1500);
      }
    }

    // Standings equal the games recorded.
    // An aborted game counts for nobody: no score, no game (DECISIONS.md "Aborted games").
    const expected = new Map(players.map((p) => [p.id, { score: 0, wins: 0, games: 0 }]));
    for (const game of finished.values()) {
      for (const seat of [game.player1, game.player2]) {
        const outcome = outcomeOf(game, seat.id);
        const row = expected.get(seat.id);
        if (!row) continue;
        row.score += ARENA_SCORE[outcome];
        row.wins += outcome === 'win' ? 1 : 0;
        row.games += outcome === 'aborted' ? 0 : 1;
      }
    }
    const standings = Object.fromEntries(final.standings.map((s) => [s.playerId, s]));
    for (const [id, row] of expected) {
      expect({ id, ...pick(standings[id]) }).toEqual({
        id,
        score: row.score,
        wins: row.wins,
        games: row.games,
      });
    }

    // Each place paid once: coins = the games' + the prize; the title to the winner alone.
    const places = new Map<string, (typeof ARENA_PRIZES)[number]>();
    // Places go to players who scored (DECISIONS.md "Event cup arenas").
    const scored = final.standings.filter((s) => s.score > 0);
    ARENA_PRIZES.forEach((prize, i) => {
      const at = scored[i];
      if (at) places.set(at.playerId, prize);
    });
    await sleep(3000); // a prize paid twice would arrive in this time
    // Games' coins from every game finished so far: a game still running at the end (its bots
    // stopped moving) ends by timeout later, outside the final standings, and pays as any game.
    const coinsOfGames = async (playerId: string) => {
      let coins = 0;
      // By game id: the test itself sends the first game's result again, as a redelivery.
      const byGame = new Map<string, GameFinished>();
      for (const event of await games.events()) {
        if (event.type !== EventTypes.gameFinished) continue;
        const game = event.data as GameFinished;
        byGame.set(game.gameId, game);
      }
      for (const game of byGame.values()) {
        if (game.player1.id !== playerId && game.player2.id !== playerId) continue;
        const outcome = outcomeOf(game, playerId);
        if (outcome !== 'aborted') coins += rewardFor(outcome, game.endReason).coins;
      }
      return coins;
    };
    for (const p of players) {
      let want = 0;
      const reward = await waitFor(
        async () => {
          want = (before.get(p.id) ?? 0) + (await coinsOfGames(p.id)) + (places.get(p.id)?.coins ?? 0);
          const res = await stack().call<RewardView>('GET', `/api/rewards/${p.id}`);
          return res.status === 200 && res.body.assets.coins === want ? res.body : undefined;
        },
        { timeoutMs: 40_000, what: `the games' coins and the prize for ${p.name}` },
      ).catch(async () => (await stack().call<RewardView>('GET', `/api/rewards/${p.id}`)).body);
      const row = { name: p.name, place: places.get(p.id)?.place, ...expected.get(p.id) };
      expect({ ...row, coins: reward.assets?.coins }).toEqual({ ...row, coins: want });
      expect(reward.championStatus.eventsWinner).toBe(places.get(p.id)?.place === 1);
    }
  }, 240_000);

  /** The tournaments replica holding the arenas' lease: the one whose rounds run (its metrics). */
  async function leaseHolder(): Promise<ServiceProcess> {
    const rounds = async (t: ServiceProcess) => {
      const text = await (await fetch(`${t.url}/metrics`)).text();
      return Number(/^oasis_arena_ticks_total\{[^}]*outcome="ok"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await Promise.all(tournaments.map(rounds));
    await sleep(500);
    const after = await Promise.all(tournaments.map(rounds));
    const holder = tournaments.find((_, i) => (after[i] ?? 0) > (before[i] ?? 0));
    if (!holder) throw new Error('no tournaments replica holds the arenas lease');
    return holder;
  }

  /** What a finished game is to one of its players, as the arena scores it. */
  const outcomeOf = (game: GameFinished, playerId: string): ArenaOutcome => {
    if (isAbortedFinish(game)) return 'aborted';
    if (game.draw) return 'draw';
    return game.winner?.id === playerId ? 'win' : 'loss';
  };

  const pick = (s?: { score: number; wins: number; games: number }) => ({
    score: s?.score,
    wins: s?.wins,
    games: s?.games,
  });

  async function coinsOf(id: string): Promise<number | undefined> {
    const res = await stack().call<RewardView>('GET', `/api/rewards/${id}`);
    return res.status === 200 ? res.body.assets.coins : undefined;
  }

  /** Whether the room's game still runs: the room is there and its game not over. */
  async function stillPlayed(roomId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await stack()
        .getRoom(roomId)
        .catch(() => undefined);
      if (res?.status === 404) return false;
      if (res?.status === 200) return !(res.body as RoomView).whosTurn.gameOver;
      await sleep(200);
    }
    throw new Error(`room ${roomId} did not answer in 10 s`);
  }

  /**
   * One player: waits for its arena room, plays it to its end (through outages: a refused or
   * failed call is tried again), and again, until the arena ends. A new room named while the
   * game in the current one still runs is a double pairing.
   */
  async function bot(player: Player, end: number, doubles: string[]) {
    let current: string | null = null;
    while (Date.now() < end + 2000) {
      const me = await stack()
        .call<EventArenaResponse>('GET', `${EVENT}/me`, { token: player.token })
        .catch(() => undefined);
      const roomId = me?.status === 200 ? me.body.roomId : null;
      if (!roomId || roomId === current) {
        await sleep(100);
        continue;
      }
      current = roomId;
      for (;;) {
        const res = await stack()
          .getRoom(roomId)
          .catch(() => undefined);
        if (res?.status === 404) break; // removed once its game is over
        if (res?.status !== 200) {
          await sleep(200);
          continue;
        }
        const room = res.body as RoomView;
        const w = room.whosTurn;
        if (w.gameOver) break;
        const again = await stack()
          .call<EventArenaResponse>('GET', `${EVENT}/me`, { token: player.token })
          .catch(() => undefined);
        const other = again?.status === 200 ? again.body.roomId : null;
        // The room was read before `/me`: its game may have ended between the two, and the
        // player been paired again. Read after the new room was named, a game still running is a
        // double (a game once over stays over).
        if (other && other !== roomId && (await stillPlayed(roomId))) {
          doubles.push(`${player.name} in ${roomId} and ${other}`);
        }
        const seat = room.players[0]?.id === player.id ? 'player1' : 'player2';
        if (w.gameStarted && w[seat].turn) {
          await stack()
            .move(player, roomId, 1 + Math.floor(Math.random() * 9))
            .catch(() => undefined);
        } else await sleep(100);
      }
    }
  }
});
