import type { INestApplication } from '@nestjs/common';
import { createService, JetStreamService } from '@oasis198/service-kit';
import {
  mongoUrlFor,
  type ServiceProcess,
  startServiceProcess,
  startTestInfra,
  type TestInfra,
  testSigningKeys,
  uniqueName,
  waitFor,
} from '@oasis198/testing';
import type { AddressInfo } from 'node:net';
import { gatewayDefinition } from '../gateway';

/**
 * The ES256 key pair of the test stack (auth signs with the private key, gateways check with the
 * public one), so tests can forge or expire tokens on purpose.
 */
export const TEST_JWT_KEYS = testSigningKeys();

type Env = Record<string, string>;

/**
 * Every test client shares one address (127.0.0.1) and many play fast, so the gateways of the
 * test stacks run with the limits out of reach; suites that test a limit set it low on purpose.
 */
export const RAISED_LIMITS: Env = {
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '100000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
  REGISTER_MAX_PER_WINDOW: '100000',
  ROOM_CREATES_PER_MINUTE: '100000',
  ROOM_LEAVES_PER_MINUTE: '100000',
  ROOM_EDITS_PER_SECOND: '100000',
  REWARD_WRITES_PER_MINUTE: '100000',
  LOGIN_SUCCESSES_PER_MINUTE: '100000',
  LOGOUTS_PER_MINUTE: '100000',
  ACCOUNT_EDITS_PER_HOUR: '100000',
  PASSWORD_CHECKS_PER_MINUTE_PER_ACCOUNT: '100000',
  PASSWORD_CHECKS_PER_MINUTE_PER_ADDRESS: '100000',
  PUSH_STREAMS_PER_ADDRESS: '100000',
};

/**
 * The gateway (in this process: it is what the suites test) with the auth and rewards services as
 * processes of their own, from their build output, against a real NATS and a real
 * MongoDB-compatible server, each service with a fresh database. The gateway listens on a free
 * port; tests talk to it with fetch.
 */
export class AccountsStack {
  baseUrl = '';
  gateway?: INestApplication;
  /** Every gateway replica started (the first is `gateway`). */
  readonly gateways: INestApplication[] = [];
  readonly auth: ServiceProcess[] = [];
  rewards?: ServiceProcess;
  private readonly common: Env;
  private readonly db = uniqueName('accounts');

  constructor(
    private readonly infra: TestInfra,
    private readonly gatewayEnv: Env = {},
  ) {
    this.common = {
      NATS_URL: infra.natsUrl,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      SHUTDOWN_GRACE_MS: '200',
    };
  }

  /** `authEnv`: further variables of the auth replicas (e.g. SMTP_URL). */
  static async start(infra: TestInfra, gatewayEnv: Env = {}, authEnv: Env = {}): Promise<AccountsStack> {
    const stack = new AccountsStack(infra, gatewayEnv);
    await Promise.all([stack.startAuth(authEnv), stack.startRewards()]);
    await stack.startGateway();
    return stack;
  }

  /** Starts one more auth replica (same database and queue group). */
  async startAuth(extra: Env = {}): Promise<ServiceProcess> {
    const auth = await startServiceProcess('auth', {
      ...this.common,
      MONGO_URL: mongoUrlFor(this.infra, `${this.db}-auth`),
      JWT_PRIVATE_KEY: TEST_JWT_KEYS.privateKey,
      // The cheapest argon2id the service accepts keeps the suites fast.
      PASSWORD_HASH_MEMORY_KIB: '8192',
      ...extra,
    });
    this.auth.push(auth);
    return auth;
  }

  /** auth's database (e.g. to age a reset link on purpose). */
  get authMongoUrl(): string {
    return mongoUrlFor(this.infra, `${this.db}-auth`);
  }

  async stopAuth(): Promise<void> {
    for (const auth of this.auth.splice(0)) await auth.stop();
  }

  async startRewards(extra: Env = {}): Promise<ServiceProcess> {
    this.rewards = await startServiceProcess('rewards', {
      ...this.common,
      MONGO_URL: mongoUrlFor(this.infra, `${this.db}-rewards`),
      ...extra,
    });
    return this.rewards;
  }

  async stopRewards(): Promise<void> {
    await this.rewards?.stop();
    this.rewards = undefined;
  }

  async startGateway(): Promise<void> {
    const { app, baseUrl } = await this.startGatewayReplica();
    this.gateway = app;
    this.baseUrl = baseUrl;
  }

  /**
   * One more gateway replica on its own port, with the same settings (the first one is
   * `gateway`/`baseUrl`). Replicas share nothing but NATS, like replicas in a cluster. Like a
   * rollout, it waits until the replica is ready (its token revocations caught up), unless
   * `ready: false`.
   */
  async startGatewayReplica({ ready = true } = {}): Promise<{ app: INestApplication; baseUrl: string }> {
    const { app } = await createService(gatewayDefinition, {
      ...this.common,
      JWT_PUBLIC_KEY: TEST_JWT_KEYS.publicKey,
      ...RAISED_LIMITS,
      ...this.gatewayEnv,
    });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    this.gateways.push(app);
    const baseUrl = `http://127.0.0.1:${port}`;
    if (ready) {
      await waitFor(async () => (await fetch(`${baseUrl}/health/ready`)).status === 200, {
        timeoutMs: 30_000,
        what: 'the gateway replica to be ready',
      });
    }
    return { app, baseUrl };
  }

  async stopGateways(): Promise<void> {
    for (const app of this.gateways.splice(0)) await app.close();
    this.gateway = undefined;
  }

  async close(): Promise<void> {
    await this.stopGateways();
    await this.stopRewards();
    await this.stopAuth();
  }

  /** The gateway's JetStream connection, e.g. to publish the events another service would. */
  get events(): JetStreamService {
    if (!this.gateway) throw new Error('the gateway is not running');
    return this.gateway.get(JetStreamService);
  }

  /** The stack's NATS and MongoDB (e.g. to publish events or open the services' databases). */
  get servers(): TestInfra {
    return this.infra;
  }

  /** One HTTP call: JSON in and out, with an optional bearer token. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: {
      body?: unknown;
      token?: string;
      rawBody?: string;
      headers?: Record<string, string>;
      /** Another replica's address (default: the first gateway's). */
      baseUrl?: string;
    } = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const hasBody = options.body !== undefined || options.rawBody !== undefined;
    const headers: Record<string, string> = {
      ...(hasBody && { 'content-type': 'application/json' }),
      ...options.headers,
    };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    const response = await fetch(`${options.baseUrl ?? this.baseUrl}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }
}

/**
 * For Jest suites: real NATS and MongoDB plus a stack, started in beforeAll and stopped in
 * afterAll in the right order (apps first, then the servers they are connected to). The getter
 * works inside tests and later hooks.
 */
export function useStack<T extends { close(): Promise<void> }>(
  start: (infra: TestInfra) => Promise<T>,
  what: string,
): () => T {
  let infra: TestInfra | undefined;
  let stack: T | undefined;
  beforeAll(async () => {
    infra = await startTestInfra();
    stack = await start(infra);
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await infra?.stop();
  }, 60_000);
  return () => {
    if (!stack) throw new Error(`${what}: not started yet`);
    return stack;
  };
}

/** The accounts stack (gateway, auth, rewards) for a Jest suite. */
export function useAccountsStack(gatewayEnv: Env = {}): () => AccountsStack {
  return useStack((infra) => AccountsStack.start(infra, gatewayEnv), 'useAccountsStack()');
}

let counter = 0;

/** A fresh valid account: name, e-mail and a password that is not on the common list. */
export function newAccount(prefix = 'p'): {
  name: string;
  email: string;
  password: string;
  confirmedPassword: string;
} {
  counter += 1;
  const tag = `${Date.now().toString(36).slice(-5)}${counter}`;
  const password = `Qz${tag}x9`;
  return {
    name: `${prefix}${tag}`.slice(0, 16),
    email: `${prefix}${tag}@example.com`,
    password,
    confirmedPassword: password,
  };
}
