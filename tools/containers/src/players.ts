// Players for the container stack's tests: real HTTP clients of a gateway replica, each with a
// live Server-Sent Events stream of its room, playing legal plain moves. Every answer is counted
// by status, and every move the server accepted (2xx) is remembered with the game it belongs to,
// so a test can check afterwards that the system kept it.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Account {
  id: string;
  name: string;
  token: string;
}

export interface RoomView {
  _id: string;
  version: number;
  players: Array<{ id: string; name: string }>;
  gameStarted: boolean;
  gameOver: boolean;
  duration: number;
  whosTurn: {
    gameNumber: number;
    currentNumber: number;
    gameOver: boolean;
    winner: 'player1' | 'player2' | null;
    endReason: string | null;
    player1: { turn: boolean; restart: boolean };
    player2: { turn: boolean; restart: boolean };
    moves: Array<{ player: string; number: number; option: string; total: number }>;
  };
}

/** Counts of what clients saw: HTTP statuses, and 'network' for no answer at all. */
export class Outcomes {
  readonly byStatus = new Map<string, number>();
  readonly events: Array<{ at: number; what: string }> = [];

  count(status: number | 'network', what: string): void {
    const key = String(status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
    if (status === 'network' || status >= 500) this.events.push({ at: Date.now(), what: `${key} ${what}` });
  }

  /** Counts by status between two instants, from the recorded failures (2xx/4xx are not timed). */
  failuresBetween(from: number, to: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const event of this.events) {
      if (event.at < from || event.at > to) continue;
      const status = event.what.split(' ')[0] as string;
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  summary(): Record<string, number> {
    return Object.fromEntries([...this.byStatus.entries()].sort());
  }
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** One HTTP call to a gateway; a network failure or a timeout answers status 0. */
export async function call<T = unknown>(
  base: string,
  method: string,
  path: string,
  {
    token,
    body,
    outcomes,
    timeoutMs = 15_000,
  }: {
    token?: string;
    body?: unknown;
    outcomes?: Outcomes;
    timeoutMs?: number;
  } = {},
): Promise<Answer<T>> {
  try {
    const response = await fetch(base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    outcomes?.count(response.status, `${method} ${path}`);
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  } catch {
    outcomes?.count('network', `${method} ${path}`);
    return { status: 0, body: null as T };
  }
}

/** Registers a new account (a unique name per run), retrying while the stack is unavailable. */
export async function register(base: string, name: string, outcomes?: Outcomes): Promise<Account> {
  const email = `${name.toLowerCase()}@fault.oasis198.test`;
  const password = 'faultTest198';
  for (let attempt = 1; ; attempt++) {
    const answer = await call<{ _id: string; name: string; token: string; message?: string }>(
      base,
      'POST',
      '/api/users/',
      { body: { name, email, password, confirmedPassword: password }, outcomes },
    );
    if (answer.status === 201 || answer.status === 200) {
      return { id: answer.body._id, name: answer.body.name, token: answer.body.token };
    }
    if (attempt >= 10 || (answer.status >= 400 && answer.status < 500)) {
      throw new Error(`registering ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    await sleep(1000);
  }
}

/**
 * Follows a room's event stream: calls onRoom with every room pushed, reconnects after an error or
 * the end of the stream (as browsers do), until stop() or the room's deletion.
 */
export function followRoom(
  base: string,
  roomId: string,
  onRoom: (room: RoomView) => void,
  onDeleted: () => void,
): { stop: () => void } {
  const controller = new AbortController();
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const response = await fetch(`${base}/api/rooms/${roomId}/stream`, { signal: controller.signal });
        if (response.status === 404) {
          onDeleted();
          return;
        }
        if (!response.ok || !response.body) throw new Error(String(response.status));
        let buffer = '';
        const decoder = new TextDecoder();
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(frame)?.[1];
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (event === 'room' && data) onRoom(JSON.parse(data) as RoomView);
            if (event === 'room-deleted') {
              onDeleted();
              return;
            }
          }
        }
      } catch {
        // reconnect below
      }
      if (!stopped) await sleep(1000);
    }
  })();
  return {
    stop: () => {
      stopped = true;
      controller.abort();
    },
  };
}

export interface AcceptedMove {
  gameId: string;
  index: number;
  number: number;
  option: string;
}

export interface FinishedGame {
  gameId: string;
  players: [string, string];
  winner: string | null;
  endReason: string;
  moves: RoomView['whosTurn']['moves'];
}

export interface GameOptions {
  duration: number;
  thinkMs: number;
  /** Press Play Again after each game while this answers true. */
  keepPlaying: () => boolean;
  /**
   * When set, the last move is made at this instant (waiting for it if need be) and none after it,
   * so the opponent's turn times out exactly 19 s later (14 + 4 + 1).
   */
  lastMoveAt?: number;
}

/**
 * Two players in one room, each through its own gateway replica and stream. Player 1 creates the
 * room, player 2 joins; on each pushed room the player to move thinks, then moves (plain, 1..9).
 */
export class PlayedRoom {
  roomId = '';
  room?: RoomView;
  readonly accepted: AcceptedMove[] = [];
  readonly finished = new Map<string, FinishedGame>();
  private streams: Array<{ stop: () => void }> = [];
  private busy = false;
  private stopped = false;
  private deleted = false;
  private poller?: NodeJS.Timeout;

  readonly players: [Account & { base: string }, Account & { base: string }];
  private readonly options: GameOptions;
  private readonly outcomes: Outcomes;

  constructor(
    players: [Account & { base: string }, Account & { base: string }],
    options: GameOptions,
    outcomes: Outcomes,
  ) {
    this.players = players;
    this.options = options;
    this.outcomes = outcomes;
  }

  async open(): Promise<void> {
    const [a, b] = this.players;
    const created = await this.retry(() =>
      call<RoomView>(a.base, 'POST', '/api/rooms/', {
        token: a.token,
        body: {
          gameType: 'quick-battle',
          createdBy: { id: a.id, name: a.name },
          duration: this.options.duration,
          passCode: '',
        },
        outcomes: this.outcomes,
      }),
    );
    this.roomId = created.body._id;
    this.streams = this.players.map((p) =>
      followRoom(
        p.base,
        this.roomId,
        (room) => this.seen(room),
        () => (this.deleted = true),
      ),
    );
    const joined = await this.retry(() =>
      call<{ room: RoomView }>(b.base, 'PATCH', `/api/rooms/${this.roomId}/edit`, {
        token: b.token,
        body: { players: { playerId: b.id, playerName: b.name } },
        outcomes: this.outcomes,
      }),
    );
    this.seen(joined.body.room);
    // The fallback every browser has: a read now and then, in case a push was missed.
    this.poller = setInterval(() => void this.poll(), 3000);
  }

  private async poll(): Promise<void> {
    if (this.stopped || this.deleted) return;
    const answer = await call<RoomView>(this.players[0].base, 'GET', `/api/rooms/${this.roomId}`, {
      outcomes: this.outcomes,
    });
    if (answer.status === 200) this.seen(answer.body);
    if (answer.status === 404) this.deleted = true;
  }

  private async retry<T>(attempt: () => Promise<Answer<T>>): Promise<Answer<T>> {
    for (let i = 1; ; i++) {
      const answer = await attempt();
      if (answer.status >= 200 && answer.status < 300) return answer;
      if (i >= 20 || (answer.status >= 400 && answer.status < 500 && answer.status !== 429)) {
        throw new Error(`room ${this.roomId || '(new)'}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      await sleep(1000);
    }
  }

  private seen(room: RoomView): void {
    if (this.room && room.version <= this.room.version) return;
    this.room = room;
    const w = room.whosTurn;
    if (w.gameOver && room.players.length === 2) {
      const gameId = `${room._id}:${w.gameNumber}`;
      if (!this.finished.has(gameId)) {
        this.finished.set(gameId, {
          gameId,
          players: [room.players[0]?.id ?? '', room.players[1]?.id ?? ''],
          winner: w.winner ? (room.players[w.winner === 'player1' ? 0 : 1]?.id ?? null) : null,
          endReason: w.endReason ?? '',
          moves: w.moves,
        });
      }
    }
    void this.act();
  }

  private async act(): Promise<void> {
    if (this.busy || this.stopped || !this.room) return;
    this.busy = true;
    const startVersion = this.room.version;
    let retryLater = false;
    try {
      const room = this.room;
      const w = room.whosTurn;
      if (w.gameOver) {
        if (!this.options.keepPlaying()) return;
        for (const [index, seat] of (['player1', 'player2'] as const).entries()) {
          if (w[seat].restart) continue;
          const p = this.players[index] as Account & { base: string };
          const answer = await call(p.base, 'PATCH', `/api/rooms/${room._id}/edit`, {
            token: p.token,
            body: { whosTurnReadyPlayer: { [seat]: { turn: false, restart: true } } },
            outcomes: this.outcomes,
          });
          if (answer.status === 0 || answer.status >= 500) retryLater = true;
        }
        return;
      }
      if (!w.player1.turn && !w.player2.turn) return;
      const last = this.options.lastMoveAt;
      if (last !== undefined && Date.now() >= last) return;
      const seatIndex = w.player1.turn ? 0 : 1;
      const p = this.players[seatIndex] as Account & { base: string };
      let think = this.options.thinkMs * (0.5 + Math.random());
      // Within 12 s of the last move's instant (well inside a turn), wait for exactly that
      // instant; before it, never think past the start of that window.
      const untilLast = last === undefined ? Infinity : last - Date.now();
      think = untilLast <= 12_000 ? untilLast : Math.min(think, untilLast - 12_000);
      await sleep(Math.max(0, think));
      if (this.stopped || this.room !== room) return;
      const number = 1 + Math.floor(Math.random() * 9);
      const answer = await call<{ room: RoomView }>(p.base, 'PATCH', `/api/rooms/${room._id}/edit`, {
        token: p.token,
        body: { move: { number, option: 'plain' } },
        outcomes: this.outcomes,
      });
      if (answer.status === 200) {
        const after = answer.body.room;
        const index = w.moves.length;
        const move = after.whosTurn.moves[index];
        if (after.whosTurn.gameNumber === w.gameNumber && move) {
          this.accepted.push({
            gameId: `${room._id}:${w.gameNumber}`,
            index,
            number: move.number,
            option: move.option,
          });
        } else {
          this.accepted.push({ gameId: `${room._id}:${w.gameNumber}`, index, number, option: 'plain' });
        }
        this.seen(after);
      } else if (answer.status === 0 || answer.status >= 500) {
        retryLater = true;
      }
    } finally {
      this.busy = false;
      // Something arrived while this one was busy; or an outage: try again in a second.
      if (!this.stopped && this.room) {
        if (this.room.version !== startVersion) setImmediate(() => void this.act());
        else if (retryLater) setTimeout(() => void this.act(), 1000);
      }
    }
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.poller);
    for (const stream of this.streams) stream.stop();
  }
}
