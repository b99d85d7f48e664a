import { EventTypes, type GameFinished, type PlayedGame, Streams } from '@oasis198/contracts';
import { recordEvents, SseClient, waitFor } from '@oasis198/testing';
import { connect } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Player, useGameStack } from '../testing/game-stack';

const sec = 1000;

/**
 * The clock: real 14-second rooms, so these tests wait for real time. The scenarios run side by
 * side in one test to keep the suite short (about 35 s):
 *  - room A times out normally (rewards and the blitz title);
 *  - room C's game goes on across a crash of the rooms service (SIGKILL, then a new process);
 *  - room B's timeout falls due while the timer is down (killed), and is applied once when a new
 *    timer process starts (before anyone moved: an aborted game, which pays nothing).
 */
describe('turn timeouts and restarts', () => {
  const stack = useGameStack({ RPC_TIMEOUT_MS: '1500' });

  it('times out a 14 s turn, survives rooms and the timer killed and started again, and loses or doubles nothing', async () => {
    const s = stack();
    const t0 = Date.now();
    // Every event GAMES stores from here on (JetStream de-duplicates by msg-id), by type.
    const nc = await connect({ servers: s.infra.natsUrl });
    const games = await recordEvents(nc, Streams.games.name);
    const stored = async (type: string) => (await games.events()).filter((event) => event.type === type);

    // Room A: alice and bob move once each, then alice lets her 14 s turn run out.
    const a = await s.startedGame({ duration: 14 });
    const watcherA = await SseClient.open(`${s.baseUrl}/api/rooms/${a.room._id}/stream`);
    expect((await s.move(a.alice, a.room._id, 5)).status).toBe(200);
    expect((await s.move(a.bob, a.room._id, 5)).status).toBe(200);

    // Room C (32 s turns): a game that goes on while the rooms service restarts.
    const c = await s.startedGame();
    const cPlayers: Record<'player1' | 'player2', Player> = { player1: c.alice, player2: c.bob };
    const play = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const room = (await s.getRoom(c.room._id)).body;
        if (room.whosTurn.gameOver) return room;
        const mover = room.whosTurn.player1.turn ? cPlayers.player1 : cPlayers.player2;
        const res = await s.move(mover, c.room._id, 9);
        expect(res.status).toBe(200);
      }
      return (await s.getRoom(c.room._id)).body;
    };
    const before = await play(5);
    await s.stopRooms({ kill: true });
    const down = await s.move(before.whosTurn.player1.turn ? c.alice : c.bob, c.room._id, 9);
    expect(down.status).toBe(503);
    await s.startRooms();
    const afterRestart = await s.getRoom(c.room._id);
    expect({ status: afterRestart.status, body: afterRestart.body }).toMatchObject({ status: 200 });
    expect(afterRestart.body.whosTurn.moves).toHaveLength(5);
    const finalC = await play(40);
    expect(finalC.whosTurn).toMatchObject({ gameOver: true, endReason: 'reached198' });
    expect(finalC.whosTurn.moves).toHaveLength(22);

    // Room B starts at t0 + 8 s: its first turn falls due about 27 s in, while the timer is down.
    await sleep(Math.max(0, t0 + 8 * sec - Date.now()));
    const b = await s.startedGame({ duration: 14 });
    const bDue = (b.room.whosTurn.deadline ?? 0) + 1;

    // A's timeout, with the timer running: alice (to move) loses.
    await watcherA.until((w) => w.rooms().some((r) => r.whosTurn.gameOver), 'room A to time out', 30 * sec);
    const endedA = watcherA.rooms().find((r) => r.whosTurn.gameOver);
    expect(endedA?.whosTurn).toMatchObject({
      endReason: 'timeout',
      winner: 'player2',
      player1: { turn: true },
    });
    watcherA.close();

    // The timer goes down before B's turn is due and comes back after it.
    await s.stopTimer({ kill: true });
    const serverNow = (await s.getRoom(b.room._id)).body.serverNow;
    expect(serverNow).toBeLessThan(bDue);
    await sleep((bDue - serverNow) * sec + 2 * sec);
    const stillRunning = (await s.getRoom(b.room._id)).body;
    expect(stillRunning.whosTurn.gameOver).toBe(false); // nobody applied it while the timer was away
    const restarted = Date.now();
    await s.startTimer();
    const endedB = await waitFor(
      async () => {
        const room = (await s.getRoom(b.room._id)).body;
        return room.whosTurn.gameOver ? room : undefined;
      },
      { timeoutMs: 10 * sec, intervalMs: 50, what: "room B's overdue timeout" },
    );
    expect(Date.now() - restarted).toBeLessThan(3 * sec);
    expect(endedB.whosTurn).toMatchObject({
      endReason: 'timeout',
      winner: 'player2',
      player1: { turn: true },
    });

    // Rewards: each game paid once; a loser by timeout gets nothing; a 14 s win is a blitz title.
    const rewardA = await s.rewardOf(a.bob.id, (r) => r.playedGames === 1);
    expect(rewardA.assets).toEqual({ points: 25, coins: 10 });
    expect(rewardA.championStatus.blitzWinner).toBe(true);
    expect((await s.rewardOf(a.alice.id, (r) => r.playedGames === 1)).assets).toEqual({
      points: 0,
      coins: 0,
    });
    // B timed out before anyone moved: aborted (DECISIONS.md), listed as such, and paid to nobody.
    for (const player of [b.alice, b.bob]) {
      await waitFor(
        async () => {
          const res = await s.call<PlayedGame[]>('GET', `/api/rewards/${player.id}/games`);
          return res.body[0]?.result === 'aborted' ? res.body : undefined;
        },
        { timeoutMs: 10 * sec, what: "room B's game in the history as aborted" },
      );
    }
    const cWinner = finalC.whosTurn.winner === 'player1' ? c.alice : c.bob;
    const cReward = await s.rewardOf(cWinner.id, (r) => r.playedGames === 1);
    expect(cReward).toMatchObject({
      assets: { points: 25, coins: 10 },
      championStatus: { blitzWinner: false },
    });

    // Exactly one game.finished per game, and every move of C once, in its move list.
    const finished = await stored(EventTypes.gameFinished);
    for (const room of [a.room, b.room, c.room]) {
      expect(finished.filter((e) => (e.data as GameFinished).roomId === room._id)).toHaveLength(1);
    }
    const finishedOf = (roomId: string) =>
      finished.find((e) => (e.data as GameFinished).roomId === roomId)?.data as GameFinished;
    expect([a.room, b.room, c.room].map((room) => finishedOf(room._id).aborted)).toEqual([
      false,
      true,
      false,
    ]);
    const cGame = finishedOf(c.room._id);
    expect(cGame.moveList?.map((m) => m.total)).toEqual(Array.from({ length: 22 }, (_, i) => 9 * (i + 1)));
    await sleep(1000);
    for (const player of [a.alice, a.bob, cWinner]) {
      expect((await s.rewardOf(player.id)).playedGames).toBe(1);
    }
    for (const player of [b.alice, b.bob]) {
      expect(await s.rewardOf(player.id)).toMatchObject({ playedGames: 0, assets: { points: 0, coins: 0 } });
    }
    await nc.close();
  });

  it('drops what a stalled rooms process was asked while it stood still: players told 503 find nothing changed', async () => {
    const s = stack();
    const carol = await s.register('c');
    const { alice, room } = await s.startedGame();
    const rooms = s.rooms;
    if (!rooms) throw new Error('rooms is not running');
    // SIGSTOP: the process neither dies nor answers (a long GC pause, a throttled or frozen pod).
    // NATS still hands it the requests its queue group routes to it; they wait in its socket.
    process.kill(rooms.pid, 'SIGSTOP');
    let answers;
    try {
      answers = await Promise.all([s.createRoom(carol), s.move(alice, room._id, 9)]);
    } finally {
      process.kill(rooms.pid, 'SIGCONT');
    }
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    // Woken, it reads both requests after the gateway stopped waiting, and drops them unhandled.
    await waitFor(
      async () => {
        const metrics = await (await fetch(`${rooms.url}/metrics`)).text();
        // Summed over subjects: the create and the move were both dropped.
        const counts = [...metrics.matchAll(/^oasis_rpc_expired_total\{[^}]*\} (\d+)/gm)];
        return counts.reduce((sum, [, n]) => sum + Number(n), 0) >= 2 || undefined;
      },
      { timeoutMs: 10 * sec, what: 'the woken rooms process to drop both requests' },
    );
    expect((await s.call('GET', '/api/rooms/mine', { token: carol.token })).status).toBe(404);
    expect((await s.getRoom(room._id)).body.whosTurn.moves).toHaveLength(0);
    // What the players then try again is handled as if the first try had never been sent.
    expect((await s.createRoom(carol)).status).toBe(201);
    expect((await s.move(alice, room._id, 9)).status).toBe(200);
  });
});
