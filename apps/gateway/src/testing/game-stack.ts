import type { RewardView, RoomView } from '@oasis198/contracts';
import {
  mongoUrlFor,
  type ServiceProcess,
  startServiceProcess,
  type TestInfra,
  uniqueName,
  waitFor,
} from '@oasis198/testing';
import { AccountsStack, newAccount, useStack } from './accounts-stack';

type Env = Record<string, string>;

export interface Player {
  id: string;
  name: string;
  token: string;
}

/**
 * The whole back end: the gateway in this process, auth, rewards, rooms and the game timer as
 * processes of their own (see AccountsStack), against a real NATS and a real MongoDB-compatible
 * server. The rooms service and the timer can be stopped and started again on the same databases
 * (the fault tests).
 */
export class GameStack {
  rooms?: ServiceProcess;
  timer?: ServiceProcess;
  /** Every HTTP body and SSE frame the tests received, to scan for secrets. */
  readonly seen: string[] = [];
  private readonly roomsDb = uniqueName('rooms');

  private constructor(
    readonly infra: TestInfra,
    readonly accounts: AccountsStack,
    private readonly roomsEnv: Env,
  ) {}

  static async start(infra: TestInfra, gatewayEnv: Env = {}, roomsEnv: Env = {}): Promise<GameStack> {
    const accounts = new AccountsStack(infra, gatewayEnv);
    const stack = new GameStack(infra, accounts, roomsEnv);
    // The services start side by side, as a cluster's pods do; the gateway once they answer.
    await Promise.all([
      accounts.startAuth(),
      accounts.startRewards(),
      stack.startRooms(),
      stack.startTimer(),
    ]);
    await accounts.startGateway();
    return stack;
  }

  private env(db: string): Env {
    return {
      NATS_URL: this.infra.natsUrl,
      MONGO_URL: mongoUrlFor(this.infra, db),
      NODE_ENV: 'test',
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      SHUTDOWN_GRACE_MS: '500',
    };
  }

  async startRooms(): Promise<void> {
    this.rooms = await startServiceProcess('rooms', { ...this.env(this.roomsDb), ...this.roomsEnv });
  }

  /** One more rooms replica on the same database and queue group (the caller stops it). */
  startRoomsReplica(): Promise<ServiceProcess> {
    return startServiceProcess('rooms', { ...this.env(this.roomsDb), ...this.roomsEnv });
  }

  /** A graceful stop (SIGTERM), or with `kill` a SIGKILL: the process dies where it stands. */
  async stopRooms({ kill = false } = {}): Promise<void> {
    await (kill ? this.rooms?.kill() : this.rooms?.stop());
    this.rooms = undefined;
  }

  async startTimer(): Promise<void> {
    // The timer keeps its deadlines in NATS (message schedules): no database of its own.
    const { MONGO_URL: _none, ...env } = this.env(this.roomsDb);
    this.timer = await startServiceProcess('game-timer', env);
  }

  /** See stopRooms. */
  async stopTimer({ kill = false } = {}): Promise<void> {
    await (kill ? this.timer?.kill() : this.timer?.stop());
    this.timer = undefined;
  }

  async close(): Promise<void> {
    await this.accounts.stopGateways();
    await this.stopTimer();
    await this.stopRooms();
    await this.accounts.stopRewards();
    await this.accounts.stopAuth();
  }

  get baseUrl(): string {
    return this.accounts.baseUrl;
  }

  /** One HTTP call through the gateway; the raw body is kept for the secret scan. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const result = await this.accounts.call<T>(method, path, options);
    this.seen.push(JSON.stringify(result.body));
    return result;
  }

  async register(prefix = 'p'): Promise<Player> {
    const account = newAccount(prefix);
    const res = await this.call<{ _id: string; name: string; token: string }>('POST', '/api/users/', {
      body: account,
    });
    if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body._id, name: res.body.name, token: res.body.token };
  }

  // ------------------------------------------------------------------------------- rooms API

  createRoom(player: Player, body: Partial<{ duration: number; passCode: string; gameType: string }> = {}) {
    return this.call<RoomView>('POST', '/api/rooms/', {
      token: player.token,
      body: {
        gameType: 'quick-battle',
        createdBy: { id: player.id, name: player.name },
        duration: 32,
        passCode: '',
        ...body,
      },
    });
  }

  edit(player: Player, roomId: string, body: unknown) {
    return this.call<{ room: RoomView; message?: string; code?: string }>(
      'PATCH',
      `/api/rooms/${roomId}/edit`,
      {
        token: player.token,
        body,
      },
    );
  }

  join(player: Player, roomId: string, passCode?: string) {
    return this.edit(player, roomId, { players: { playerId: player.id, playerName: player.name }, passCode });
  }

  move(player: Player, roomId: string, number: unknown, option?: string) {
    return this.edit(player, roomId, { move: option === undefined ? { number } : { number, option } });
  }

  ready(player: Player, roomId: string, seat: 'player1' | 'player2') {
    return this.edit(player, roomId, { whosTurnReadyPlayer: { [seat]: { turn: false, restart: true } } });
  }

  leave(player: Player, roomId: string) {
    return this.edit(player, roomId, { players: { playerId: player.id, removePlayer: true } });
  }

  getRoom(roomId: string) {
    return this.call<RoomView & { message?: string }>('GET', `/api/rooms/${roomId}`);
  }

  /** A started game between two fresh players: alice (player 1, to move) and bob. */
  async startedGame(options: { duration?: number; passCode?: string } = {}) {
    const [alice, bob] = await Promise.all([this.register('a'), this.register('b')]);
    const created = await this.createRoom(alice, options);
    if (created.status !== 201)
      throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
    const joined = await this.join(bob, created.body._id, options.passCode);
    if (joined.status !== 200)
      throw new Error(`join failed: ${joined.status} ${JSON.stringify(joined.body)}`);
    return { alice, bob, room: joined.body.room };
  }

  /** The reward record once it satisfies `until`. */
  async rewardOf(playerId: string, until: (r: RewardView) => boolean = () => true, timeoutMs = 15_000) {
    return waitFor(
      async () => {
        const res = await this.call<RewardView>('GET', `/api/rewards/${playerId}`);
        return res.status === 200 && until(res.body) ? res.body : undefined;
      },
      { timeoutMs, what: `the reward record of ${playerId}` },
    );
  }
}

/** The whole back end for a Jest suite (see useStack). */
export function useGameStack(gatewayEnv: Env = {}, roomsEnv: Env = {}): () => GameStack {
  return useStack((infra) => GameStack.start(infra, gatewayEnv, roomsEnv), 'useGameStack()');
}
