// The bots of the peer: the stack's bot players (tools/containers/src/players.ts) on Colyseus's
// client (@colyseus/sdk). Each game is two clients with their own WebSocket: one creates a room,
// the other joins it by id. A player moves a think time (thinkMs ± jitter) after its state says it
// is its turn, with the same move choice, and both press Play Again a think time after a game
// ends. The round trip is the same: the move sent -> the OPPONENT's state has the change.
import { Client, type Room } from '@colyseus/sdk';
import type { BotView, MoveIntent, Seat } from '@oasis198/game-rules';
import type { Recorder } from '../lib/stats.ts';

/** How long a move may wait for the opponent's state before it counts as an error. */
const ROUND_TRIP_TIMEOUT_MS = 10_000;

export type PeerFleetOptions = {
  thinkMs: number;
  jitter: number;
  duration: number;
  chooseMove: (whosTurn: BotView, seat: Seat) => MoveIntent;
};

/** What the bots read of the peer's schema state (server.ts OasisState). */
type PeerState = {
  version: number;
  gameNumber: number;
  gameStarted: boolean;
  gameOver: boolean;
  currentNumber: number;
  turn: string;
  restart1: boolean;
  restart2: boolean;
  oasis1: BotView['helpOasis']['oasis1'];
  oasis2: BotView['helpOasis']['oasis2'];
};

type Pending = {
  mover: Seat;
  sentAt: number;
  version: number;
  intent: MoveIntent;
  answered: boolean;
  received: boolean;
  timer: NodeJS.Timeout;
};

class PeerGame {
  private readonly rooms: Room[] = [];
  private readonly planned = new Set<string>();
  private pending?: Pending;
  private readonly timers = new Set<NodeJS.Timeout>();
  halted = false;
  private readonly fleet: PeerFleet;
  private readonly clients: [Client, Client];

  constructor(fleet: PeerFleet, clients: [Client, Client]) {
    this.fleet = fleet;
    this.clients = clients;
  }

  async open() {
    const [a, b] = this.clients;
    const first = await a.create('oasis', { duration: this.fleet.options.duration });
    this.watch(first, 'player1');
    const second = await b.joinById(first.roomId);
    this.watch(second, 'player2');
  }

  private watch(room: Room, seat: Seat) {
    this.rooms.push(room);
    room.onMessage('refused', (message: string) => this.fleet.recorder.error('refused', message));
    room.onLeave((code: number) => {
      if (!this.halted) this.fleet.recorder.error('left', `${seat} left with code ${code}`);
    });
    room.onError((code: number, message?: string) =>
      this.fleet.recorder.error('room error', `${code} ${message}`),
    );
    room.onStateChange((state: PeerState) => this.onState(room, seat, state));
  }

  private onState(room: Room, seat: Seat, state: PeerState) {
    if (this.halted) return;
    const now = performance.now();
    const pending = this.pending;
    if (pending && state.version >= pending.version) {
      if (seat === pending.mover && !pending.answered) {
        // The mover's own state has it: what the PATCH's answer is to the stack's bots.
        pending.answered = true;
        this.fleet.recorder.move({ ...pending.intent, patchMs: now - pending.sentAt });
      } else if (seat !== pending.mover && !pending.received) {
        pending.received = true;
        clearTimeout(pending.timer);
        this.fleet.recorder.roundTrip(now - pending.sentAt);
      }
      if (pending.answered && pending.received) this.pending = undefined;
    }
    if (state.gameStarted && !state.gameOver && state.turn === seat) {
      const key = `move:${state.version}`;
      if (this.planned.has(key)) return;
      this.planned.add(key);
      const view = {
        currentNumber: state.currentNumber,
        helpOasis: { oasis1: { ...state.oasis1 }, oasis2: { ...state.oasis2 } },
      } as BotView;
      const version = state.version;
      this.later(this.fleet.think(), () => this.move(room, seat, view, version));
    } else if (state.gameOver) {
      const key = `ready:${state.gameNumber}:${seat}`;
      if (this.planned.has(key)) return;
      this.planned.add(key);
      if (seat === 'player1') this.fleet.recorder.gameFinished();
      if (!(seat === 'player1' ? state.restart1 : state.restart2)) {
        this.later(this.fleet.think(), () => room.send('ready'));
      }
    }
    if (this.planned.size > 64) this.planned.clear();
  }

  private move(room: Room, seat: Seat, view: BotView, version: number) {
    if (this.halted || this.fleet.stopping) return;
    const intent = this.fleet.options.chooseMove(view, seat);
    const pending: Pending = {
      mover: seat,
      sentAt: performance.now(),
      version: version + 1,
      intent,
      answered: false,
      received: false,
      timer: setTimeout(() => {
        if (this.pending !== pending || pending.received || this.halted) return;
        this.pending = undefined;
        this.fleet.recorder.error('timeout', `the opponent's state did not get version ${version + 1}`);
      }, ROUND_TRIP_TIMEOUT_MS),
    };
    this.pending = pending;
    room.send('move', intent);
  }

  private later(ms: number, fn: () => void) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        fn();
      } catch (error) {
        this.fleet.recorder.error('bench bug', String((error as Error).stack));
      }
    }, ms);
    this.timers.add(timer);
  }

  async halt() {
    // A room left once answers a second leave never.
    if (this.halted) return;
    this.halted = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.pending) clearTimeout(this.pending.timer);
    await Promise.all(this.rooms.map((room) => room.leave(true).catch(() => undefined)));
  }
}

/** Games on the peer, played by bots until stop(). */
export class PeerFleet {
  readonly games: PeerGame[] = [];
  stopping = false;
  readonly url: string;
  readonly recorder: Recorder;
  readonly options: PeerFleetOptions;

  constructor(url: string, recorder: Recorder, options: PeerFleetOptions) {
    this.url = url;
    this.recorder = recorder;
    this.options = options;
  }

  think() {
    const { thinkMs, jitter } = this.options;
    return thinkMs * (1 - jitter + 2 * jitter * Math.random());
  }

  /** Opens `count` more games, 16 at a time; resolves how many failed to open (each recorded). */
  async add(count: number) {
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const game = new PeerGame(this, [new Client(this.url), new Client(this.url)]);
        this.games.push(game);
        try {
          await game.open();
        } catch (error) {
          failed++;
          this.recorder.error('open', (error as Error).message);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return failed;
  }

  async stop() {
    if (this.stopping) return;
    this.stopping = true;
    await Promise.all(this.games.map((game) => game.halt()));
  }
}
