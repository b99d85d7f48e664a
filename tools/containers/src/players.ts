// Bot players, for the benchmark (tools/scripts/bench.ts) and the fault test: real clients of the
// gateway, each with a live Server-Sent Events stream of its room. A pair of bots plays one game:
// when the push says it is a bot's turn, it waits its think time and sends a legal move (PATCH
// /api/rooms/:id/edit, or the same edit on its room socket with FleetOptions.socket); when the game
// is over both press Play Again. A move's round trip is measured from sending it to the OPPONENT's
// stream receiving the room version that contains it. Every move answered 2xx and every finished
// game goes to the recorder, so a test can check afterwards that the system kept them.
//
// Node runs this file as it is (Node 24 strips the types); the room protocol (RoomView,
// withNewMoves) comes from contracts and the stream is read by eventsource-parser, as in tests.
// Not fetch: on this machine it costs about three times the CPU per request (0.23-0.29 against
// 0.07-0.09 ms, measured), which at 900 moves/s the bots would take from the stack they measure.
import { once } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RoomMovesPushData, RoomSocketAnswer, RoomView } from '@oasis198/contracts';
import { createParser } from 'eventsource-parser';
import WebSocket from 'ws';
import { contracts } from '../../scripts/lib/libs.ts';

export type { RoomView };

/** How long a pushed move or a stream's first room may take before it counts as an error. */
const PUSH_TIMEOUT_MS = 10_000;
/** Every bot's password (valid by SPEC §5). */
export const PASSWORD = 'benchOasis198';
/** A bot's e-mail address, by its name. */
export const emailOf = (name: string) => `${name.toLowerCase()}@bench.oasis198.test`;

/** A room's path in the gateway's API (SPEC §7), e.g. roomPath(id, '/edit'). */
const roomPath = (id: string, rest = '') => `/api/rooms/${encodeURIComponent(id)}${rest}`;

export type Seat = 'player1' | 'player2';
export type Move = { number: number | 'random'; option: string };
export type StoredMove = { player: string; number: number; option: string; total: number };

/** A move answered 2xx, in its game (`<roomId>:<gameNumber>`) at `index`. */
export interface MoveRecord extends Move {
  gameId: string;
  index: number;
  /** The move as the server stored it (with the number it drew for "random"), when the answer showed it. */
  stored?: StoredMove;
  patchMs: number;
}

export interface FinishedGame {
  gameId: string;
  players: [string, string];
  winner: string | null;
  endReason: string;
  moves: StoredMove[];
}

/** What the bots report. Errors are what a player would notice: refusals, cut streams, stalls. */
export interface Recorder {
  error(kind: string, detail: string): void;
  move?(move: MoveRecord): void;
  roundTrip?(ms: number): void;
  gameFinished?(game: FinishedGame): void;
}

export type Answer<T = unknown> = { status: number; body: T; ms: number };

/** A request without an answer: kind 'timeout' or 'network'. */
type Failure = Error & { kind?: string; recorded?: boolean };
const kindOf = (error: unknown, otherwise: string): string =>
  (error as Failure).kind === 'timeout' ? 'timeout' : otherwise;
const excerpt = (body: unknown): string => JSON.stringify(body)?.slice(0, 200) ?? '';
const bearer = (token?: string) => (token ? { authorization: `Bearer ${token}` } : {});
/** The parsed JSON, or the text itself when it is none. */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
type OnFrame = (id: string | undefined, event: string, data: string, at: number) => void;

type Stream = ReturnType<GatewayClient['stream']>;
type ClientOptions = {
  maxSockets?: number;
  timeoutMs?: number;
  /**
   * Send a request again, once, when a kept-alive socket was reset before any answer came (the
   * server closed it as the request left), as browsers do. Off by default: every failure counts.
   */
  retryResetReusedSocket?: boolean;
  onAnswer?: (status: number | 'network', what: string, startedAt: number) => void;
};

/**
 * A JSON client for one gateway. Requests share `maxSockets` keep-alive sockets, so 2,000 bots do
 * not open 2,000 more connections for their PATCHes; push streams use no agent (a socket of their
 * own each, never pooled). `onAnswer` sees every request's status, or 'network' when none came.
 */
export class GatewayClient {
  private readonly agent: http.Agent;
  private readonly base: string;
  readonly timeoutMs: number;
  private readonly onAnswer: ClientOptions['onAnswer'];
  private readonly retryResetReusedSocket: boolean;

  constructor(
    base: string,
    { maxSockets = 128, timeoutMs = 10_000, onAnswer, retryResetReusedSocket = false }: ClientOptions = {},
  ) {
    this.retryResetReusedSocket = retryResetReusedSocket;
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'lifo',
    });
    this.base = base;
    this.timeoutMs = timeoutMs;
    this.onAnswer = onAnswer;
  }

  /**
   * Resolves { status, body, ms } (body: parsed JSON, or the text) for any HTTP answer; rejects
   * only for network failures and timeouts (error.kind = 'timeout' | 'network').
   */
  async request<T = unknown>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; timeoutMs?: number } = {},
    retried = false,
  ): Promise<Answer<T>> {
    const { token, body, timeoutMs = this.timeoutMs } = options;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    const startedAt = Date.now();
    const what = `${method} ${path}`;
    const req = http.request(this.base + path, {
      method,
      agent: this.agent,
      headers: {
        accept: 'application/json',
        ...(payload && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        ...bearer(token),
      },
    });
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`${what} timed out after ${timeoutMs} ms`), { kind: 'timeout' }));
    }, timeoutMs);
    try {
      req.on('error', () => undefined).end(payload); // an error after the answer ends its body
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      let text = '';
      for await (const chunk of res.setEncoding('utf8')) text += chunk;
      const status = res.statusCode ?? 0;
      this.onAnswer?.(status, what, startedAt);
      const json = text && /json/.test(res.headers['content-type'] ?? '');
      return { status, body: (json ? parseOr(text) : text) as T, ms: performance.now() - started };
    } catch (error) {
      const reset = (error as NodeJS.ErrnoException).code === 'ECONNRESET' && req.reusedSocket;
      if (reset && this.retryResetReusedSocket && !retried) return this.request(method, path, options, true);
      const { code, message } = error as NodeJS.ErrnoException;
      const how = `${code ?? message}${req.reusedSocket ? ' on a reused socket' : ''}${retried ? ', sent again' : ''}`;
      this.onAnswer?.('network', `${what} (${how})`, startedAt);
      throw Object.assign(error as Failure, { kind: (error as Failure).kind ?? 'network' });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens a Server-Sent Events stream. onFrame(id, event, data, at) gets every frame, with `at`
   * the performance.now() reading when the chunk that completed it arrived; onEnd(reason) is
   * called once when the stream ends for any reason but close(), a failed opening included.
   */
  stream(
    path: string,
    token: string | undefined,
    { onFrame, onEnd }: { onFrame: OnFrame; onEnd: (reason: string) => void },
  ) {
    let ended = false;
    const end = (reason: string) => {
      if (!ended) onEnd(reason);
      ended = true;
    };
    const req = http.get(this.base + path, {
      agent: false,
      headers: { accept: 'text/event-stream', ...bearer(token) },
    });
    req.on('error', (error) => end(error.message));
    const timer = setTimeout(() => {
      const error = new Error(`stream ${path} did not open in ${this.timeoutMs} ms`);
      req.destroy(Object.assign(error, { kind: 'timeout' }));
    }, this.timeoutMs);
    const opened = (once(req, 'response') as Promise<[http.IncomingMessage]>)
      .then(([response]) => {
        if (response.statusCode !== 200) {
          response.resume();
          throw Object.assign(new Error(`stream ${path} answered ${response.statusCode}`), { kind: 'http' });
        }
        const parser = createParser({
          onEvent: ({ id, event = 'message', data }) => onFrame(id, event, data, performance.now()),
        });
        response.setEncoding('utf8').on('data', (chunk: string) => parser.feed(chunk));
        response.on('end', () => end('ended by the server'));
        response.on('error', (error) => end(error.message));
        response.on('close', () => end('connection closed'));
      })
      .catch((error: Failure) => {
        end(error.message);
        throw Object.assign(error, { kind: error.kind ?? 'network' });
      })
      .finally(() => clearTimeout(timer));
    opened.catch(() => undefined);
    return {
      opened,
      close() {
        ended = true;
        req.destroy();
      },
    };
  }

  /** A room socket for the player with this token (opening; the first edit waits for it). */
  roomSocket(token: string): RoomSocketClient {
    return new RoomSocketClient(this.base, token, this.timeoutMs);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Calls `fn` on each item, `concurrency` calls at a time; resolves when all are done. */
async function inPool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

type Account = { _id: string; name: string; token: string };

export interface Player {
  id: string;
  name: string;
  token: string;
  /** The gateway (replica) this player plays through. */
  client: GatewayClient;
  /** The player's room socket, once opened (FleetOptions.socket). */
  socket?: RoomSocketClient;
}

/**
 * A player's room socket (ADR 0035): room edits as frames on one WebSocket, each answered with the
 * status and body of PATCH /api/rooms/:id/edit. A request the socket closes under fails as a
 * network failure does; the next one opens a new socket.
 */
export class RoomSocketClient {
  private next = 1;
  private readonly waiting = new Map<number, (answer: RoomSocketAnswer | Error) => void>();
  private readonly opened: Promise<void>;
  private readonly ws: WebSocket;
  closed = false;

  constructor(base: string, token: string, timeoutMs: number) {
    this.ws = new WebSocket(
      `${base.replace(/^http/, 'ws')}${contracts.ROOM_SOCKET_PATH}`,
      [contracts.ROOM_SOCKET_PROTOCOL, contracts.ROOM_SOCKET_TOKEN_PREFIX + token],
      { handshakeTimeout: timeoutMs, perMessageDeflate: false },
    );
    this.opened = once(this.ws, 'open').then(() => undefined);
    this.opened.catch(() => undefined);
    this.ws.on('message', (data) => {
      const answer = JSON.parse(data.toString()) as RoomSocketAnswer;
      if (answer.id === null) return;
      this.waiting.get(answer.id)?.(answer);
      this.waiting.delete(answer.id);
    });
    const fail = (reason: string) => {
      this.closed = true;
      for (const settle of this.waiting.values())
        settle(Object.assign(new Error(reason), { kind: 'network' }));
      this.waiting.clear();
    };
    this.ws.on('error', (error) => fail(error.message));
    this.ws.on('close', (code) => fail(`room socket closed (${code})`));
  }

  async edit<T>(roomId: string, body: unknown, timeoutMs: number): Promise<Answer<T>> {
    await this.opened;
    const id = this.next++;
    const started = performance.now();
    const answer = await new Promise<RoomSocketAnswer | Error>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(Object.assign(new Error(`room socket: no answer in ${timeoutMs} ms`), { kind: 'timeout' }));
      }, timeoutMs);
      this.waiting.set(id, (settled) => {
        clearTimeout(timer);
        resolve(settled);
      });
      this.ws.send(JSON.stringify({ id, roomId, body }));
    });
    if (answer instanceof Error) throw answer;
    return { status: answer.status, body: answer.body as T, ms: performance.now() - started };
  }

  close(): void {
    this.closed = true;
    this.ws.terminate();
  }
}

/**
 * Registers (or, with loginFirst, logs in and registers only the unknown) players by name, with
 * the e-mail <name>@bench.oasis198.test, 8 at a time, in the order of `names`. What
 * got no answer or a 5xx is tried again a second later, 10 times at most, logging in first: a
 * registration that timed out here may have been done there. A refusal throws (with a hint on a
 * rate limit).
 */
export async function enlist(
  client: GatewayClient,
  names: readonly string[],
  {
    loginFirst = false,
    onError = () => undefined,
  }: { loginFirst?: boolean; onError?: Recorder['error'] } = {},
): Promise<Player[]> {
  const players: Player[] = [];
  await inPool([...names.keys()], 8, async (i) => {
    const name = names[i] as string;
    const email = emailOf(name);
    for (let attempt = 1; ; attempt++) {
      try {
        let answer: Answer<Account> | undefined;
        if (loginFirst || attempt > 1) {
          answer = await client.request('POST', '/api/users/login', { body: { email, password: PASSWORD } });
          if (answer.status === 429) throw rateLimited('login');
        }
        if (answer?.status !== 200) {
          answer = await client.request('POST', '/api/users/', {
            body: { name, email, password: PASSWORD, confirmedPassword: PASSWORD },
          });
          if (answer.status === 429) throw rateLimited('register');
        }
        if (answer.status === 200 || answer.status === 201) {
          players[i] = { id: answer.body._id, name: answer.body.name, token: answer.body.token, client };
          return;
        }
        const error = new Error(`${name}: ${answer.status} ${excerpt(answer.body)}`);
        // A refusal is final; a 5xx, like no answer, is tried again, and so is a retry's 409 (the
        // lost registration may have ended between this attempt's login and its registration).
        const again = answer.status >= 500 || (attempt > 1 && answer.status === 409);
        throw again ? Object.assign(error, { kind: 'http' }) : error;
      } catch (error) {
        if (!(error as Failure).kind || attempt >= 10) throw error;
        onError(kindOf(error, 'register'), (error as Error).message);
        await sleep(1000);
      }
    }
  });
  return players;
}

function rateLimited(what: string): Error {
  return new Error(
    `the gateway rate-limits ${what} (429). Bots register from one address: start the stack with ` +
      `the limits of SHARED_ADDRESS_LIMITS (tools/scripts/lib/stack.ts), or let the bench start its own.`,
  );
}

export interface FleetOptions {
  /** The rooms' turn duration in seconds (14, 32, 60 or 300). */
  duration: number;
  /** Each bot thinks thinkMs * (1 ± jitter) before a move or Play Again (jitter 0..1). */
  thinkMs: number;
  jitter: number;
  /** A game that made no progress for this long is counted as stalled and read again. */
  stallMs?: number;
  /** The move for the player to move: plain 1..9 unless given. */
  chooseMove?: (whosTurn: RoomView['whosTurn'], seat: Seat) => Move;
  /** Press Play Again after a game while this answers true (by default until stop()). */
  keepPlaying?: () => boolean;
  /** Moves and Play Again over each player's room socket instead of an HTTP request each. */
  socket?: boolean;
}

/** Games played by bots. Games keep playing until stop(); add() and open() start more. */
export class Fleet {
  readonly games: Game[] = [];
  stopping = false;
  readonly recorder: Recorder;
  readonly options: Required<FleetOptions>;
  private readonly watchdog = setInterval(() => {
    const now = performance.now();
    for (const game of this.games) game.checkStall(now);
  }, 1000);

  constructor(recorder: Recorder, options: FleetOptions) {
    this.recorder = recorder;
    this.options = {
      stallMs: options.thinkMs * 2 + PUSH_TIMEOUT_MS + 5000,
      chooseMove: () => ({ number: 1 + Math.floor(Math.random() * 9), option: 'plain' }),
      keepPlaying: () => true,
      socket: false,
      ...options,
    };
    this.watchdog.unref();
  }

  /**
   * A game for two players: a creates the room (player1), b joins (player2). With lastMoveAt, the
   * game's last move is made at that instant (waiting for it if need be) and none after it.
   */
  async open(a: Player, b: Player, lastMoveAt?: number): Promise<Game> {
    const game = new Game(this, [a, b], lastMoveAt);
    this.games.push(game);
    await game.open();
    return game;
  }

  /** Opens games for pairs of players, 16 at a time; resolves the failures (recorded) when all are playing. */
  async add(pairs: ReadonlyArray<[Player, Player]>): Promise<Error[]> {
    const failures: Error[] = [];
    await inPool(pairs, 16, async ([a, b]) => {
      try {
        await this.open(a, b);
      } catch (error) {
        if (!(error as Failure).recorded) {
          this.recorder.error(kindOf(error, 'open'), `opening a game: ${(error as Error).message}`);
        }
        failures.push(error as Error);
      }
    });
    return failures;
  }

  think(): number {
    const { thinkMs, jitter } = this.options;
    return thinkMs * (1 - jitter + 2 * jitter * Math.random());
  }

  /** Stops every game: no more moves, streams closed; with `deleteRooms` the rooms are deleted too. */
  async stop({ deleteRooms = false } = {}): Promise<void> {
    this.stopping = true;
    clearInterval(this.watchdog);
    for (const game of this.games) game.halt();
    for (const game of this.games) game.closeSockets();
    if (deleteRooms) await inPool(this.games, 16, (game) => game.remove());
  }
}

/** A move whose receipt by the opponent's stream is awaited. */
type Pending = { opponent: number; sentAt: number; version?: number; timer?: NodeJS.Timeout };

export class Game {
  roomId = '';
  room?: RoomView;
  private readonly fleet: Fleet;
  private readonly recorder: Recorder;
  private readonly players: [Player, Player];
  private readonly lastMoveAt?: number;
  private streams: Array<Stream | undefined> = [];
  private arrivals = [new Map<number, number>(), new Map<number, number>()];
  private version = 0;
  private plannedVersion = -1;
  private lastFinished = '';
  private readonly readied = new Set<string>();
  private readonly inflight = new Set<Pending>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private busy = false;
  private halted = false;
  private lastProgress = performance.now();
  private lastStallReport = 0;

  constructor(fleet: Fleet, players: [Player, Player], lastMoveAt?: number) {
    this.fleet = fleet;
    this.recorder = fleet.recorder;
    this.players = players;
    this.lastMoveAt = lastMoveAt;
  }

  /** Creates the room, opens both players' streams, and has player 2 join (the game starts). */
  async open(): Promise<void> {
    const [a, b] = this.players;
    const created = await this.leavingFirst([a, b], () =>
      this.persist<{ _id: string }>(a, 'POST', '/api/rooms/', {
        gameType: 'quick-battle',
        createdBy: { id: a.id, name: a.name },
        duration: this.fleet.options.duration,
        passCode: '',
      }),
    );
    if (created.status !== 201 && created.status !== 200) throw this.fail('create', created);
    this.roomId = created.body._id;
    await Promise.all([this.connect(0), this.connect(1)]);
    const joined = await this.leavingFirst([b], () =>
      this.persist(b, 'PATCH', roomPath(this.roomId, '/edit'), {
        players: { playerId: b.id, playerName: b.name },
      }),
    );
    if (joined.status !== 200) throw this.fail('join', joined);
    this.lastProgress = performance.now();
  }

  /**
   * Sends a request; if it answers 409 (a room left over from an earlier run against the same
   * stack), the players leave the rooms they are in and it is sent again.
   */
  private async leavingFirst<T>(players: Player[], send: () => Promise<Answer<T>>): Promise<Answer<T>> {
    const answer = await send();
    if (answer.status !== 409) return answer;
    for (const player of players) {
      const mine = await this.call<{ _id: string }>(player, 'GET', '/api/rooms/mine');
      if (mine.status === 200) await this.call(player, 'DELETE', roomPath(mine.body._id, '/delete'));
    }
    return send();
  }

  /** A request that outlasts an outage: no answer, a 5xx or a 429 is tried again a second later (20 times). */
  private async persist<T>(player: Player, method: string, path: string, body?: unknown): Promise<Answer<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.call<T>(player, method, path, body);
        if ((answer.status < 500 && answer.status !== 429) || attempt >= 20) return answer;
        this.recorder.error(`http ${answer.status}`, `${method} ${path}: ${excerpt(answer.body)}`);
      } catch (error) {
        if (attempt >= 20) throw error;
        this.recorder.error(kindOf(error, 'network'), `${method} ${path}: ${(error as Error).message}`);
      }
      await sleep(1000);
    }
  }

  private call<T = unknown>(player: Player, method: string, path: string, body?: unknown) {
    return player.client.request<T>(method, path, { token: player.token, body });
  }

  /** A room edit: over the player's room socket with FleetOptions.socket, else PATCH .../edit. */
  private edit<T = unknown>(player: Player, body: unknown): Promise<Answer<T>> {
    if (!this.fleet.options.socket)
      return this.call<T>(player, 'PATCH', roomPath(this.roomId, '/edit'), body);
    if (!player.socket || player.socket.closed) player.socket = player.client.roomSocket(player.token);
    return player.socket.edit<T>(this.roomId, body, player.client.timeoutMs);
  }

  closeSockets(): void {
    for (const player of this.players) player.socket?.close();
  }

  private fail(what: string, answer: Answer): Failure {
    this.recorder.error(`http ${answer.status}`, `${what}: ${excerpt(answer.body)}`);
    return Object.assign(new Error(`${what} answered ${answer.status}`), { recorded: true });
  }

  /** Opens player i's stream; resolves once the current room has arrived on it. */
  private async connect(i: 0 | 1): Promise<void> {
    const arrived = Promise.withResolvers<void>();
    const { client, token } = this.players[i];
    const stream = client.stream(roomPath(this.roomId, '/stream'), token, {
      onFrame: (id, event, data, at) => {
        this.onFrame(i, id, event, data, at);
        arrived.resolve();
      },
      onEnd: (reason) => this.onStreamEnd(i, stream, reason),
    });
    this.streams[i] = stream;
    try {
      await stream.opened;
    } catch (error) {
      this.recorder.error(kindOf(error, 'sse open'), (error as Error).message);
      throw Object.assign(error as Error, { recorded: true });
    }
    await Promise.race([arrived.promise, sleep(PUSH_TIMEOUT_MS, undefined, { ref: false })]);
  }

  private onStreamEnd(i: 0 | 1, stream: Stream, reason: string): void {
    if (this.halted || this.streams[i] !== stream) return;
    this.recorder.error('sse drop', reason);
    this.streams[i] = undefined;
    // Reconnect (the stream starts with the room as it is now); a failed one ends and comes here again.
    this.later(1000, () => this.connect(i).catch(() => undefined));
  }

  private onFrame(i: 0 | 1, id: string | undefined, event: string, data: string, at: number): void {
    if (this.halted) return;
    if (event === 'room-deleted') {
      this.recorder.error('room deleted', data);
      this.restart();
      return;
    }
    if (event !== 'room' && event !== 'room-moves') return;
    const version = Number(id);
    const arrivals = this.arrivals[i] as Map<number, number>;
    if (!arrivals.has(version)) arrivals.set(version, at);
    // The 8 newest are kept (a Map iterates in insertion order).
    if (arrivals.size > 16) for (const v of [...arrivals.keys()].slice(0, -8)) arrivals.delete(v);
    // The opponent's receipt of a move in flight.
    for (const pending of this.inflight) {
      if (pending.version !== undefined && i === pending.opponent && version >= pending.version) {
        this.settle(pending, at);
      }
    }
    if (version <= this.version) return;
    // The newest room known (this.room) has every move a newer push's stream sent before it.
    const pushed = JSON.parse(data) as RoomMovesPushData;
    const room = event === 'room' ? pushed : this.room && contracts.withNewMoves(this.room, pushed);
    if (room) this.take(room, version, at);
    else this.recorder.error('push without the moves before it', `${pushed._id} v${version}`);
  }

  /** A newer state of the room: a finished game is recorded, then the bots do what it asks. */
  private take(room: RoomView, version: number, at: number): void {
    this.version = version;
    this.room = room;
    this.lastProgress = at;
    const w = room.whosTurn;
    const gameId = `${room._id}:${w.gameNumber}`;
    if (w.gameOver && room.players.length === 2 && gameId !== this.lastFinished) {
      this.lastFinished = gameId;
      const seatOf = (seat: Seat) => room.players[seat === 'player1' ? 0 : 1]?.id ?? null;
      this.recorder.gameFinished?.({
        gameId,
        players: [seatOf('player1') ?? '', seatOf('player2') ?? ''],
        winner: w.winner ? seatOf(w.winner) : null,
        endReason: w.endReason ?? '',
        moves: w.moves,
      });
    }
    this.react();
  }

  /** Decides what the new state asks of the bots: a move, or Play Again. */
  private react(): void {
    const room = this.room as RoomView;
    const w = room.whosTurn;
    if (this.fleet.stopping) return;
    if (room.gameStarted && !w.gameOver) {
      const seat = w.player1.turn ? 'player1' : w.player2.turn ? 'player2' : null;
      if (!seat || this.plannedVersion === this.version) return;
      const think = this.thinkBeforeMove();
      if (think === undefined) return;
      this.plannedVersion = this.version;
      const version = this.version;
      this.later(think, () => this.move(seat, version));
    } else if (w.gameOver && this.fleet.options.keepPlaying()) {
      for (const seat of ['player1', 'player2'] as const) {
        const key = `${w.gameNumber}:${seat}`;
        if (w[seat].restart || this.readied.has(key)) continue;
        this.readied.add(key);
        this.later(this.fleet.think(), () => this.ready(seat, w.gameNumber));
      }
    }
  }

  /** The think time before a move; none once lastMoveAt has passed. */
  private thinkBeforeMove(): number | undefined {
    const think = this.fleet.think();
    if (this.lastMoveAt === undefined) return think;
    const untilLast = this.lastMoveAt - Date.now();
    if (untilLast <= 0) return undefined;
    // Within 12 s of the last move's instant (well inside a turn), wait for exactly that instant;
    // before it, never think past the start of that window.
    return untilLast <= 12_000 ? untilLast : Math.min(think, untilLast - 12_000);
  }

  private async move(seat: Seat, version: number): Promise<void> {
    const room = this.room;
    if (this.halted || this.fleet.stopping || version !== this.version || !room) return;
    const mover = seat === 'player1' ? 0 : 1;
    const w = room.whosTurn;
    const intent = this.fleet.options.chooseMove(w, seat);
    const pending: Pending = { opponent: 1 - mover, sentAt: performance.now() };
    this.inflight.add(pending);
    let answer: Answer<{ room: RoomView }>;
    try {
      answer = await this.edit(this.players[mover], { move: intent });
    } catch (error) {
      this.inflight.delete(pending);
      if (this.halted) return; // the step ended while the move was under way
      this.recorder.error(kindOf(error, 'network'), `move: ${(error as Error).message}`);
      return this.again();
    }
    if (this.halted) return;
    if (answer.status !== 200) {
      this.inflight.delete(pending);
      const refused = answer.status === 400 || answer.status === 409;
      this.recorder.error(
        refused ? 'illegal move refused' : `http ${answer.status}`,
        `move ${JSON.stringify(intent)} at ${w.currentNumber}: ${excerpt(answer.body)}`,
      );
      return this.again();
    }
    const after = answer.body.room;
    const index = w.moves.length;
    this.recorder.move?.({
      ...intent,
      gameId: `${room._id}:${w.gameNumber}`,
      index,
      stored: after.whosTurn.gameNumber === w.gameNumber ? after.whosTurn.moves[index] : undefined,
      patchMs: answer.ms,
    });
    const written = after.version;
    pending.version = written;
    const seen = [...(this.arrivals[pending.opponent] as Map<number, number>)].find(([v]) => v >= written);
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

  private settle(pending: Pending, at: number): void {
    this.inflight.delete(pending);
    clearTimeout(pending.timer);
    this.recorder.roundTrip?.(at - pending.sentAt);
  }

  private async ready(seat: Seat, gameNumber: number): Promise<void> {
    if (this.halted || this.fleet.stopping || !this.room) return;
    const w = this.room.whosTurn;
    if (w.gameNumber !== gameNumber || !w.gameOver || w[seat].restart) return;
    const player = this.players[seat === 'player1' ? 0 : 1];
    let problem: [string, string] | undefined;
    try {
      const answer = await this.edit(player, {
        whosTurnReadyPlayer: { [seat]: { turn: false, restart: true } },
      });
      if (answer.status !== 200) problem = [`http ${answer.status}`, `ready: ${excerpt(answer.body)}`];
    } catch (error) {
      problem = [kindOf(error, 'network'), `ready: ${(error as Error).message}`];
    }
    // The step ended (and its rooms were deleted) while the request was under way: not an error.
    if (this.halted || !problem) return;
    this.recorder.error(...problem);
    this.readied.delete(`${gameNumber}:${seat}`);
    this.resync();
  }

  /** After a failed move: plan it again from the room as it is now. */
  private again(): void {
    this.plannedVersion = -1;
    this.resync();
  }

  /** After an error: read the room as it is and carry on from there. */
  private resync(): void {
    this.later(500, async () => {
      if (this.halted) return;
      try {
        const answer = await this.call<RoomView>(this.players[0], 'GET', roomPath(this.roomId));
        if (answer.status === 404) return this.restart();
        if (answer.status === 200 && answer.body.version >= this.version) {
          this.take(answer.body, answer.body.version, performance.now());
        }
      } catch {
        // the watchdog tries again
      }
    });
  }

  /** The room is gone: open a new one for the same players, if they keep playing. */
  private restart(): void {
    if (this.halted || this.busy) return;
    if (!this.fleet.options.keepPlaying()) return this.halt();
    this.busy = true;
    this.disconnect();
    this.roomId = '';
    this.room = undefined;
    this.version = 0;
    this.plannedVersion = -1;
    this.arrivals = [new Map(), new Map()];
    this.open()
      .catch(() => undefined)
      .finally(() => (this.busy = false));
  }

  /** No progress for stallMs: count it once per stall and read the room again. */
  checkStall(now: number): void {
    if (this.halted || this.busy || !this.room || this.fleet.stopping) return;
    const limit = this.fleet.options.stallMs;
    if (now - this.lastProgress < limit || now - this.lastStallReport < limit) return;
    this.lastStallReport = now;
    this.recorder.error(
      'stalled',
      `room ${this.roomId} made no progress for ${Math.round((now - this.lastProgress) / 1000)} s`,
    );
    this.resync();
  }

  private later(ms: number, fn: () => unknown): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // A bug here must not kill the run (and leave its stack behind): count it instead.
      Promise.resolve()
        .then(fn)
        .catch((error: unknown) => this.recorder.error('bench bug', String((error as Error).stack)));
    }, ms);
    this.timers.add(timer);
  }

  /** Closes the streams and forgets the moves in flight. */
  private disconnect(): void {
    for (const pending of this.inflight) clearTimeout(pending.timer);
    this.inflight.clear();
    for (const [i, stream] of this.streams.entries()) {
      this.streams[i] = undefined;
      stream?.close();
    }
  }

  halt(): void {
    this.halted = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.disconnect();
  }

  async remove(): Promise<void> {
    if (!this.roomId) return;
    await this.call(this.players[0], 'DELETE', roomPath(this.roomId, '/delete')).catch(() => undefined);
  }
}
