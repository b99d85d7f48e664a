#!/usr/bin/env node
// The peer: the same game on Colyseus, as its documentation sets one up. One process, rooms in
// memory, Colyseus's own WebSocket transport (@colyseus/ws-transport) and schema state sync
// (@colyseus/schema, patches every patchRate, 50 ms by default). The rules are libs/game-rules, as
// rooms applies them: a move message is checked with parseMoveIntent and applied with applyMove,
// a turn's deadline is a room clock timer (applyTimeout), Play Again is markReady. Nothing is
// written anywhere: a crash loses every game (docs/benchmarks.md, "The peer").
//
// Usage: node tools/bench/peer-colyseus/server.ts [--port 2567]   (prints "listening <port>")
import { randomBytes, randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type Client, Room, Server } from '@colyseus/core';
import { ArraySchema, schema, t } from '@colyseus/schema';
import { WebSocketTransport } from '@colyseus/ws-transport';
import type { GameState, Seat } from '@oasis198/game-rules';
import { rules } from '../lib/rules.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '2567' } } });

/** One player's Oasis option counts, as the rules keep them. */
const OasisCounts = schema(
  {
    double: t.uint8(),
    extra: t.uint8(),
    minus: t.uint8(),
    added: t.uint8(),
    bonus: t.uint8(),
    matched: t.uint8(),
  },
  'OasisCounts',
);
const Move = schema(
  {
    player: t.string(),
    number: t.uint8(),
    option: t.string(),
    aiNumber: t.uint8(),
    total: t.int16(),
    at: t.number(),
  },
  'Move',
);
/**
 * What the players see of a game: the rules' GameState less its secrets (the AI seed stays on
 * the server until the game is over, as in the stack), plus a version that counts changes.
 */
export const OasisState = schema(
  {
    version: t.uint32().default(0),
    gameNumber: t.uint32(),
    gameStarted: t.boolean(),
    gameOver: t.boolean(),
    currentNumber: t.int16(),
    turn: t.string(),
    restart1: t.boolean(),
    restart2: t.boolean(),
    winner: t.string(),
    endReason: t.string(),
    deadline: t.number(),
    aiCommit: t.string(),
    aiSeed: t.string(),
    oasis1: t.ref(OasisCounts),
    oasis2: t.ref(OasisCounts),
    moves: t.array(Move),
  },
  'OasisState',
);

const random = () => randomInt(0, 2 ** 47) / 2 ** 47;
const secrets = () => ({
  specialRandom: randomInt(100_000, 1_000_000),
  aiSeed: randomBytes(32).toString('hex'),
});

export class OasisRoom extends Room {
  override maxClients = 2;
  override state = new OasisState();
  /** The game as the rules hold it; the schema state is its public part. */
  private game: GameState = rules.initialGameState();
  private duration = 32;
  private readonly seats = new Map<string, Seat>();
  private deadline?: { clear(): void };

  override onCreate(options: { duration?: number }) {
    if ([14, 32, 60, 300].includes(Number(options.duration))) this.duration = Number(options.duration);
    this.onMessage('move', (client: Client, message: unknown) => {
      const seat = this.seats.get(client.sessionId);
      const parsed = rules.parseMoveIntent(message);
      if (!seat || !parsed.ok) return client.send('refused', parsed.ok ? 'not a player' : parsed.message);
      const result = rules.applyMove(this.game, seat, parsed.intent, {
        duration: this.duration,
        nowMs: Date.now(),
        random,
      });
      if (!result.ok) return client.send('refused', result.message);
      this.take(result.state);
    });
    this.onMessage('ready', (client: Client) => {
      const seat = this.seats.get(client.sessionId);
      if (!seat) return client.send('refused', 'not a player');
      const result = rules.markReady(this.game, seat, {
        duration: this.duration,
        nowMs: Date.now(),
        nextSpecialRandom: randomInt(100_000, 1_000_000),
        nextAiSeed: randomBytes(32).toString('hex'),
      });
      if (!result.ok) return client.send('refused', result.message);
      this.take(result.state);
    });
  }

  override onJoin(client: Client) {
    this.seats.set(client.sessionId, this.seats.size === 0 ? 'player1' : 'player2');
    if (this.seats.size === 2) {
      void this.lock();
      this.take(rules.startGame(this.game, { duration: this.duration, nowMs: Date.now(), ...secrets() }));
    }
  }

  override onLeave(client: Client) {
    const seat = this.seats.get(client.sessionId);
    if (!seat || this.game.gameOver || !this.game.gameStarted) return;
    const result = rules.applyLeave(this.game, seat, { nowMs: Date.now() });
    if (result.ok) this.take(result.state);
  }

  /** A new state of the game: its public part into the schema, and the turn's deadline. */
  private take(next: GameState) {
    const s = this.state;
    const sameGame = next.gameNumber === this.game.gameNumber && next.moves.length >= s.moves.length;
    this.game = next;
    s.version++;
    s.gameNumber = next.gameNumber;
    s.gameStarted = next.gameStarted;
    s.gameOver = next.gameOver;
    s.currentNumber = next.currentNumber;
    s.turn = rules.seatToMove(next) ?? '';
    s.restart1 = next.player1.restart;
    s.restart2 = next.player2.restart;
    s.winner = next.winner ?? '';
    s.endReason = next.endReason ?? '';
    s.deadline = next.deadline ?? 0;
    s.aiCommit = next.aiCommit ?? '';
    s.aiSeed = next.gameOver ? (next.aiSeed ?? '') : '';
    Object.assign(s.oasis1, next.helpOasis.oasis1);
    Object.assign(s.oasis2, next.helpOasis.oasis2);
    // Only the new moves are added, so a patch carries only them.
    if (!sameGame) s.moves = new ArraySchema();
    for (const move of next.moves.slice(s.moves.length)) s.moves.push(new Move(move));
    this.deadline?.clear();
    const seat = rules.seatToMove(next);
    if (!seat) return;
    const turn = rules.currentTurn(next);
    const dueMs = rules.fromSpecSeconds(rules.timeoutAt(next) ?? 0) + 50;
    this.deadline = this.clock.setTimeout(
      () => {
        const result = rules.applyTimeout(this.game, turn, { nowMs: Date.now() });
        if (result.ok) this.take(result.state);
      },
      Math.max(0, dueMs - Date.now()),
    );
  }
}

const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define('oasis', OasisRoom);
await server.listen(Number(values.port), '127.0.0.1');
// Colyseus stops gracefully on SIGTERM and SIGINT itself.
console.log(`listening ${values.port}`);
