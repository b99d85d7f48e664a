// Bot players: real HTTP clients of the gateway, each with a live Server-Sent Events stream of its
// room. A pair of bots plays one game: when the push says it is a bot's turn, it waits its think
// time and sends a legal move (PATCH /api/rooms/:id/edit); when the game is over both press Play
// Again. The round trip of a move is measured from sending the PATCH to the OPPONENT's stream
// receiving the room version that contains it.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { chooseMove } from './rules.mjs';

const PASSWORD = 'benchOasis198';
/** How long a pushed move, a turn or a stream may take before it counts as an error. */
const PUSH_TIMEOUT_MS = 10_000;

const api = {
  register: '/api/users/',
  login: '/api/users/login',
  rooms: '/api/rooms/',
  mine: '/api/rooms/mine',
  room: (id) => `/api/rooms/${encodeURIComponent(id)}`,
  edit: (id) => `/api/rooms/${encodeURIComponent(id)}/edit`,
  remove: (id) => `/api/rooms/${encodeURIComponent(id)}/delete`,
  stream: (id) => `/api/rooms/${encodeURIComponent(id)}/stream`,
};

/** Calls `fn` on each item, `concurrency` calls at a time; resolves when all are done. */
async function inPool(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Registers (or, with loginFirst, logs in and registers only unknown) bot accounts, `concurrency`
 * at a time: bot00001 ... with the e-mail bot00001@bench.oasis198.test. Resolves
 * [{ id, name, token }]; throws with a hint on a rate limit.
 */
export async function enlist(client, indexes, { loginFirst, concurrency, onError }) {
  const players = [];
  await inPool(indexes, concurrency, async (index) => {
    const name = `bot${String(index).padStart(5, '0')}`;
    const who = { name, email: `${name}@bench.oasis198.test`, password: PASSWORD };
    for (let attempt = 1; ; attempt++) {
      try {
        let answer;
        if (loginFirst) {
          answer = await client.request('POST', api.login, {
            body: { email: who.email, password: who.password },
          });
          if (answer.status === 429) throw rateLimited('login');
        }
        if (!answer || answer.status !== 200) {
          answer = await client.request('POST', api.register, {
            body: {
              name: who.name,
              email: who.email,
              password: who.password,
              confirmedPassword: who.password,
            },
          });
          if (answer.status === 429) throw rateLimited('register');
        }
        if (answer.status !== 200 && answer.status !== 201) {
          throw new Error(`${who.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        }
        players.push({ id: answer.body._id, name: answer.body.name, token: answer.body.token });
        return;
      } catch (error) {
        if (error.rateLimited || attempt >= 3) throw error;
        onError(error.kind === 'timeout' ? 'timeout' : 'register', error.message);
        await sleep(500 * attempt);
      }
    }
  });
  return players;
}

function rateLimited(what) {
  return Object.assign(
    new Error(
      `the gateway rate-limits ${what} (429). Bots register from one address: start the stack with ` +
        `the limits of SHARED_ADDRESS_LIMITS (tools/scripts/lib/stack.mjs), or let the bench start its own.`,
    ),
    { rateLimited: true },
  );
}

/**
 * All games of a run. Games keep playing across ladder steps (a step adds games); stop() ends them.
 * options: thinkMs, jitter (0..1, think time is thinkMs * (1 ± jitter)), duration (turn seconds).
 */
export class Fleet {
  constructor(client, recorder, options) {
    this.client = client;
    this.recorder = recorder;
    this.options = options;
    this.games = [];
    this.stopping = false;
    this.watchdog = setInterval(() => this.checkStalls(), 2000);
    this.watchdog.unref();
  }

  /** Opens games for pairs of players, 16 at a time; resolves the failures when all are playing. */
  async add(pairs) {
    const failures = [];
    await inPool(pairs, 16, async ([a, b]) => {
      const game = new Game(this, a, b);
      this.games.push(game);
      try {
        await game.open();
      } catch (error) {
        const kind = error.kind === 'timeout' ? 'timeout' : 'open';
        if (!error.recorded) this.recorder.error(kind, `opening a game: ${error.message}`);
        failures.push(error);
      }
    });
    return failures;
  }

  thinkMs() {
    const { thinkMs, jitter } = this.options;
    return thinkMs * (1 - jitter + 2 * jitter * Math.random());
  }

  checkStalls() {
    const now = performance.now();
    for (const game of this.games) game.checkStall(now);
  }

  /** Stops every game: no more moves, streams closed; with `deleteRooms` the rooms are deleted too. */
  async stop({ deleteRooms = false } = {}) {
    this.stopping = true;
    clearInterval(this.watchdog);
    for (const game of this.games) game.halt();
    if (deleteRooms) await inPool(this.games, 16, (game) => game.remove());
  }
}

class Game {
  constructor(fleet, a, b) {
    this.fleet = fleet;
    this.client = fleet.client;
    this.recorder = fleet.recorder;
    this.players = [a, b]; // a creates (player1), b joins (player2)
    this.streams = [null, null];
    this.arrivals = [new Map(), new Map()];
    this.roomId = null;
    this.room = null;
    this.version = 0;
    this.plannedVersion = -1;
    this.readied = new Set();
    /** Moves whose opponent receipt is awaited: { opponent, sentAt, version, timer }. */
    this.inflight = new Set();
    this.timers = new Set();
    this.busy = false;
    this.halted = false;
    this.lastProgress = performance.now();
    this.lastStallReport = 0;
  }

  /** Creates the room, opens both players' streams, and has player 2 join (the game starts). */
  async open() {
    const [a, b] = this.players;
    const { duration } = this.fleet.options;
    const create = () =>
      this.call(a, 'POST', api.rooms, {
        gameType: 'quick-battle',
        createdBy: { id: a.id, name: a.name },
        duration,
        passCode: '',
      });
    // A 409: a room left over from an earlier run against the same stack; leave it first.
    const created = await this.retryAfterLeaving(create, [a, b]);
    if (created.status !== 201 && created.status !== 200) throw this.fail('create', created);
    this.roomId = created.body._id;
    await Promise.all([this.connect(0), this.connect(1)]);
    const join = () =>
      this.call(b, 'PATCH', api.edit(this.roomId), { players: { playerId: b.id, playerName: b.name } });
    const joined = await this.retryAfterLeaving(join, [b]);
    if (joined.status !== 200) throw this.fail('join', joined);
    this.lastProgress = performance.now();
  }

  /** Sends a request; if it answers 409, the players leave the rooms they are in and send it again. */
  async retryAfterLeaving(send, players) {
    const answer = await send();
    if (answer.status !== 409) return answer;
    for (const player of players) {
      const mine = await this.call(player, 'GET', api.mine);
      if (mine.status === 200) await this.call(player, 'DELETE', api.remove(mine.body._id));
    }
    return send();
  }

  async call(player, method, path, body) {
    return this.client.request(method, path, { token: player.token, body });
  }

  fail(what, answer) {
    this.recorder.error(`http ${answer.status}`, `${what}: ${JSON.stringify(answer.body).slice(0, 200)}`);
    return Object.assign(new Error(`${what} answered ${answer.status}`), { recorded: true });
  }

  /** Opens player i's stream; resolves once the current room has arrived on it. */
  async connect(i) {
    let first;
    const arrived = new Promise((resolve) => (first = resolve));
    const stream = this.client.stream(api.stream(this.roomId), {
      token: this.players[i].token,
      onFrame: (id, event, data, at) => {
        this.onFrame(i, id, event, data, at);
        first();
      },
      onEnd: (reason) => this.onStreamEnd(i, stream, reason),
    });
    this.streams[i] = stream;
    try {
      await stream.opened;
    } catch (error) {
      this.recorder.error(error.kind === 'timeout' ? 'timeout' : 'sse open', error.message);
      throw Object.assign(error, { recorded: true });
    }
    await Promise.race([arrived, sleep(PUSH_TIMEOUT_MS)]);
  }

  onStreamEnd(i, stream, reason) {
    if (this.halted || this.streams[i] !== stream) return;
    this.recorder.error('sse drop', reason);
    this.streams[i] = null;
    // Reconnect (the stream starts with the room as it is now).
    this.later(1000, () => {
      if (this.halted) return;
      this.connect(i).catch(() => undefined);
    });
  }

  onFrame(i, id, event, data, at) {
    if (this.halted) return;
    if (event === 'room-deleted') {
      this.recorder.error('room deleted', data);
      this.restart();
      return;
    }
    if (event !== 'room') return;
    const version = Number(id);
    const arrivals = this.arrivals[i];
    if (!arrivals.has(version)) arrivals.set(version, at);
    if (arrivals.size > 16) {
      for (const v of arrivals.keys()) {
        if (arrivals.size <= 8) break;
        arrivals.delete(v);
      }
    }
    // The opponent's receipt of a move in flight.
    for (const pending of this.inflight) {
      if (pending.version !== undefined && i === pending.opponent && version >= pending.version) {
        this.settle(pending, at);
      }
    }
    if (version > this.version) {
      this.version = version;
      this.room = JSON.parse(data);
      this.lastProgress = at;
      this.react();
    }
  }

  /** Decides what the new state asks of the bots: a move, or Play Again. */
  react() {
    const room = this.room;
    const w = room.whosTurn;
    if (this.fleet.stopping) return;
    if (room.gameStarted && !w.gameOver) {
      const seat = w.player1.turn ? 'player1' : w.player2.turn ? 'player2' : null;
      if (!seat || this.plannedVersion === this.version) return;
      this.plannedVersion = this.version;
      const version = this.version;
      this.later(this.fleet.thinkMs(), () => this.move(seat, version));
    } else if (w.gameOver) {
      for (const seat of ['player1', 'player2']) {
        const key = `${w.gameNumber}:${seat}`;
        if (w[seat].restart || this.readied.has(key)) continue;
        this.readied.add(key);
        if (seat === 'player1') this.recorder.gameFinished();
        this.later(this.fleet.thinkMs(), () => this.ready(seat, w.gameNumber));
      }
    }
  }

  async move(seat, version) {
    if (this.halted || this.fleet.stopping || version !== this.version) return;
    const mover = seat === 'player1' ? 0 : 1;
    const intent = chooseMove(this.room.whosTurn, seat);
    const sentAt = performance.now();
    const pending = { opponent: 1 - mover, sentAt, version: undefined, timer: undefined };
    this.inflight.add(pending);
    let answer;
    try {
      answer = await this.client.request('PATCH', api.edit(this.roomId), {
        token: this.players[mover].token,
        body: { move: intent },
      });
    } catch (error) {
      this.inflight.delete(pending);
      if (this.halted) return; // the step ended while the move was under way
      this.recorder.error(error.kind === 'timeout' ? 'timeout' : 'network', `move: ${error.message}`);
      this.resync();
      return;
    }
    if (this.halted) return;
    if (answer.status !== 200) {
      this.inflight.delete(pending);
      const refused = answer.status === 400 || answer.status === 409;
      this.recorder.error(
        refused ? 'illegal move refused' : `http ${answer.status}`,
        `move ${JSON.stringify(intent)} at ${this.room.whosTurn.currentNumber}: ${JSON.stringify(answer.body).slice(0, 200)}`,
      );
      this.resync();
      return;
    }
    this.recorder.move({ ...intent, patchMs: answer.ms });
    const written = answer.body.room.version;
    pending.version = written;
    const seen = [...this.arrivals[pending.opponent]].find(([v]) => v >= written);
    if (seen) {
      this.settle(pending, seen[1]);
      return;
    }
    pending.timer = setTimeout(() => {
      if (!this.inflight.delete(pending)) return;
      this.recorder.error(
        'timeout',
        `the opponent's stream did not get version ${written} within ${PUSH_TIMEOUT_MS} ms`,
      );
      this.resync();
    }, PUSH_TIMEOUT_MS);
  }

  settle(pending, at) {
    this.inflight.delete(pending);
    clearTimeout(pending.timer);
    this.recorder.roundTrip(at - pending.sentAt);
  }

  async ready(seat, gameNumber) {
    if (this.halted || this.fleet.stopping) return;
    const w = this.room.whosTurn;
    if (w.gameNumber !== gameNumber || !w.gameOver || w[seat].restart) return;
    const player = this.players[seat === 'player1' ? 0 : 1];
    try {
      const answer = await this.call(player, 'PATCH', api.edit(this.roomId), {
        whosTurnReadyPlayer: { [seat]: { turn: false, restart: true } },
      });
      // The step ended (and its rooms were deleted) while the request was under way: not an error.
      if (this.halted) return;
      if (answer.status !== 200) {
        this.recorder.error(`http ${answer.status}`, `ready: ${JSON.stringify(answer.body).slice(0, 200)}`);
        this.resync();
      }
    } catch (error) {
      if (this.halted) return;
      this.recorder.error(error.kind === 'timeout' ? 'timeout' : 'network', `ready: ${error.message}`);
      this.resync();
    }
  }

  /** After an error: read the room as it is and carry on from there. */
  resync() {
    this.later(500, async () => {
      if (this.halted) return;
      try {
        const answer = await this.call(this.players[0], 'GET', api.room(this.roomId));
        if (answer.status === 404) return this.restart();
        if (answer.status !== 200) return;
        if (answer.body.version >= this.version) {
          this.version = answer.body.version;
          this.room = answer.body;
          this.plannedVersion = -1;
          this.lastProgress = performance.now();
          this.react();
        }
      } catch {
        // the watchdog tries again
      }
    });
  }

  /** The room is gone: open a new one for the same players. */
  restart() {
    if (this.halted || this.busy) return;
    this.busy = true;
    this.closeStreams();
    this.roomId = null;
    this.room = null;
    this.version = 0;
    this.plannedVersion = -1;
    for (const pending of this.inflight) clearTimeout(pending.timer);
    this.inflight.clear();
    this.arrivals = [new Map(), new Map()];
    this.open()
      .catch(() => undefined)
      .finally(() => (this.busy = false));
  }

  /** No progress for too long: count it once per stall and try to resync. */
  checkStall(now) {
    if (this.halted || this.busy || !this.room || this.fleet.stopping) return;
    const limit = this.fleet.options.thinkMs * 2 + PUSH_TIMEOUT_MS + 5000;
    if (now - this.lastProgress < limit || now - this.lastStallReport < limit) return;
    this.lastStallReport = now;
    this.recorder.error(
      'stalled',
      `room ${this.roomId} made no progress for ${Math.round((now - this.lastProgress) / 1000)} s`,
    );
    this.plannedVersion = -1;
    this.resync();
  }

  later(ms, fn) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // A bug here must not kill the run (and leave its stack behind): count it instead.
      Promise.resolve()
        .then(fn)
        .catch((error) => this.recorder.error('bench bug', error.stack));
    }, ms);
    this.timers.add(timer);
  }

  closeStreams() {
    for (const [i, stream] of this.streams.entries()) {
      this.streams[i] = null;
      stream?.close();
    }
  }

  halt() {
    this.halted = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const pending of this.inflight) clearTimeout(pending.timer);
    this.inflight.clear();
    this.closeStreams();
  }

  async remove() {
    if (!this.roomId) return;
    await this.call(this.players[0], 'DELETE', api.remove(this.roomId)).catch(() => undefined);
  }
}
