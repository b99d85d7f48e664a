// Tests of the bots (node --test, run by `nx run containers:test`) against a small stand-in for the
// gateway's room API on a real local HTTP server: room creation, joining, the room's event stream,
// moves and Play Again. The whole system is what the fault test and the benchmark play against;
// this checks the bots' own bookkeeping, and that they outlast a failed request.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FinishedGame, Fleet, GatewayClient, type MoveRecord, type Player } from './players.ts';

/**
 * One room: two moves end a game (player 1 wins); Play Again by both starts the next one;
 * remove() deletes it, as the rooms service does a while after a game nobody plays on.
 */
function roomServer() {
  const seat = () => ({ turn: false, restart: false });
  const room = {
    _id: 'r1',
    version: 1,
    players: [{ id: 'a', name: 'A' }],
    gameStarted: false,
    whosTurn: {
      gameNumber: 1,
      currentNumber: 0,
      gameOver: false,
      winner: null as string | null,
      endReason: null as string | null,
      player1: seat(),
      player2: seat(),
      moves: [] as Array<{ player: string; number: number; option: string; total: number }>,
      helpOasis: { oasis1: {}, oasis2: {} },
    },
  };
  const streams = new Set<http.ServerResponse>();
  const state = { readyRefusals: 1, readyAnswers: [] as number[], creates: 0, deleted: false };
  const changed = () => {
    room.version++;
    for (const res of streams)
      res.write(`id: ${room.version}\nevent: room\ndata: ${JSON.stringify(room)}\n\n`);
  };
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : {};
    const send = (status: number, payload: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    const w = room.whosTurn;
    if (state.deleted && req.url?.startsWith('/api/rooms/r1')) send(404, { message: 'no such room' });
    else if (req.url === '/api/rooms/r1/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      streams.add(res);
      res.on('close', () => streams.delete(res));
      res.write(`id: ${room.version}\nevent: room\ndata: ${JSON.stringify(room)}\n\n`);
    } else if (req.method === 'POST' && req.url === '/api/rooms/')
      send(201, { ...room, _id: `r${++state.creates}` });
    else if (req.method === 'GET' && req.url === '/api/rooms/r1') send(200, room);
    else if (body.players) {
      room.players.push({ id: body.players.playerId, name: body.players.playerName });
      room.gameStarted = true;
      w.player1.turn = true;
      changed();
      send(200, { room });
    } else if (body.move) {
      const number = body.move.number === 'random' ? 5 : body.move.number;
      w.currentNumber += number;
      w.moves.push({
        player: w.player1.turn ? 'a' : 'b',
        number,
        option: body.move.option,
        total: w.currentNumber,
      });
      [w.player1.turn, w.player2.turn] = [w.player2.turn, w.player1.turn];
      if (w.moves.length === 2) {
        Object.assign(w, { gameOver: true, winner: 'player1', endReason: 'reached198' });
        w.player1.turn = w.player2.turn = false;
      }
      changed();
      send(200, { room });
    } else if (body.whosTurnReadyPlayer) {
      // The first Play Again meets an outage.
      const status = state.readyRefusals-- > 0 ? 503 : 200;
      state.readyAnswers.push(status);
      if (status === 200) {
        const [name] = Object.keys(body.whosTurnReadyPlayer) as ['player1' | 'player2'];
        w[name].restart = true;
        if (w.player1.restart && w.player2.restart) {
          Object.assign(w, { gameNumber: w.gameNumber + 1, currentNumber: 0, gameOver: false, winner: null });
          Object.assign(w, {
            endReason: null,
            player1: { ...seat(), turn: true },
            player2: seat(),
            moves: [],
          });
        }
        changed();
      }
      send(status, status === 200 ? { room } : { message: 'unavailable' });
    } else send(404, { message: 'not found' });
  });
  const remove = () => {
    state.deleted = true;
    for (const res of streams) res.write(`event: room-deleted\ndata: {"_id":"r1"}\n\n`);
  };
  return { server, room, state, streams, remove };
}

describe('bots', () => {
  let gateway: ReturnType<typeof roomServer>;
  let client: GatewayClient;
  const player = (id: string): Player => ({ id, name: id.toUpperCase(), token: `t-${id}`, client });
  beforeEach(async () => {
    gateway = roomServer();
    await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
    client = new GatewayClient(`http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`);
  });
  afterEach(() => {
    client.close();
    for (const res of gateway.streams) res.destroy();
    gateway.server.close();
  });

  it('play a game to its end, record it, and press Play Again through an outage', async () => {
    const moves: MoveRecord[] = [];
    const finished: FinishedGame[] = [];
    const roundTrips: number[] = [];
    const errors: string[] = [];
    const fleet = new Fleet(
      {
        error: (kind) => errors.push(kind),
        move: (move) => moves.push(move),
        roundTrip: (ms) => roundTrips.push(ms),
        gameFinished: (game) => finished.push(game),
      },
      { duration: 60, thinkMs: 5, jitter: 0, stallMs: 300 },
    );
    await fleet.open(player('a'), player('b'));
    for (let i = 0; i < 100 && gateway.room.whosTurn.gameNumber < 2; i++) await sleep(50);
    await fleet.stop();

    assert.ok(gateway.room.whosTurn.gameNumber >= 2, 'both pressed Play Again, the second game started');
    assert.equal(gateway.state.readyAnswers[0], 503);
    assert.ok(errors.includes('http 503'), errors.join(', '));
    const first = finished.filter((g) => g.gameId === 'r1:1');
    assert.deepEqual(
      first.map((g) => [g.players, g.winner, g.endReason]),
      [[['a', 'b'], 'a', 'reached198']],
    );
    // Every move answered 2xx is recorded where the server stored it.
    assert.deepEqual(
      moves.filter((m) => m.gameId === 'r1:1').map((m) => [m.index, m.stored?.number, m.stored?.option]),
      first[0]?.moves.map((m, index) => [index, m.number, m.option]),
    );
    assert.ok(roundTrips.length >= 2, `round trips measured: ${roundTrips.length}`);
  });

  it('keep the record of a game whose room goes after it, and open no other room when they play no more', async () => {
    const finished: FinishedGame[] = [];
    const fleet = new Fleet(
      { error: () => undefined, gameFinished: (game) => finished.push(game) },
      { duration: 60, thinkMs: 5, jitter: 0, stallMs: 300, keepPlaying: () => false },
    );
    const game = await fleet.open(player('a'), player('b'));
    for (let i = 0; i < 100 && finished.length === 0; i++) await sleep(50);
    gateway.remove();
    await sleep(1500); // a new room would be open by now
    await fleet.stop();

    assert.equal(gateway.state.creates, 1);
    assert.equal(game.roomId, 'r1');
    assert.deepEqual(
      finished.map((g) => g.gameId),
      ['r1:1'],
    );
  });
});
