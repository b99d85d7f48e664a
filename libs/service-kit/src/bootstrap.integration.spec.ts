import { Controller, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { MessagePattern } from '@nestjs/microservices';
import { useTestInfra, waitFor } from '@oasis198/testing';
import { connect, type NatsConnection } from 'nats';
import { createService } from './bootstrap';
import { baseEnv } from './config';

@Controller()
class EchoController {
  @MessagePattern('bootstrap-it.echo')
  echo(payload: unknown) {
    return payload;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/** Requests the slow handlers have begun, so a test stops a replica only once one is in hand. */
let slowBegun = 0;

@Controller()
class SlowController {
  @MessagePattern('bootstrap-it.slow')
  async slow(payload: { ms: number }) {
    slowBegun++;
    await sleep(payload.ms);
    return payload;
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

/** A part that sets itself up on start (streams, a projector) before its handlers can serve. */
@Injectable()
class SlowStart implements OnModuleInit {
  ready = false;
  async onModuleInit() {
    await sleep(300);
    this.ready = true;
  }
}

@Controller()
class ReadyController {
  constructor(private readonly part: SlowStart) {}
  @MessagePattern('bootstrap-it.ready')
  ready() {
    return { ready: this.part.ready };
  }
}

@Module({ controllers: [ReadyController], providers: [SlowStart] })
class ReadyModule {}

// A service counts as started once its request handlers are registered at the NATS server: a
// request sent the moment createService returns is answered, never refused for "no responders"
// (the gateway would answer that with 503 right after a restart).
const infra = useTestInfra({ mongo: false });

describe('createService', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
  });
  afterAll(async () => {
    await nc.close();
  });

  it('answers a request sent right after it returns, start after start', async () => {
    const env = { NATS_URL: infra().natsUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent', SHUTDOWN_GRACE_MS: '1' };
    for (let round = 0; round < 25; round++) {
      const { app } = await createService(
        { name: 'bootstrap-it', configSchema: baseEnv, module: () => EchoModule, queue: 'bootstrap-it' },
        env,
      );
      try {
        const reply = await nc.request(
          'bootstrap-it.echo',
          JSON.stringify({ pattern: 'bootstrap-it.echo', data: { round }, id: String(round) }),
          { timeout: 2000 },
        );
        expect(reply.json()).toMatchObject({ response: { round } });
      } finally {
        await app.close();
      }
    }
  }, 60_000);

  it('takes no request before every part has set itself up', async () => {
    const env = { NATS_URL: infra().natsUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent', SHUTDOWN_GRACE_MS: '1' };
    // A replica joining the queue group of a running service gets requests at once (Kubernetes'
    // readiness does not gate NATS): one answered before onModuleInit ran is a failed move.
    const starting = createService(
      { name: 'bootstrap-it', configSchema: baseEnv, module: () => ReadyModule, queue: 'bootstrap-ready' },
      env,
    );
    let started = false;
    void starting.then(() => (started = true));
    const answers: Array<{ ready: boolean }> = [];
    // Asks until the start returns, and a few times after.
    for (let i = 0, after = 0; after < 5; i++) {
      if (started) after++;
      const reply = await nc
        .request(
          'bootstrap-it.ready',
          JSON.stringify({ pattern: 'bootstrap-it.ready', data: {}, id: String(i) }),
          {
            timeout: 1000,
          },
        )
        .catch(() => undefined);
      if (reply) answers.push(reply.json<{ response: { ready: boolean } }>().response);
      await sleep(20);
    }
    const { app } = await starting;
    try {
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.filter((a) => !a.ready)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 30_000);

  describe('a replica that stops', () => {
    const env = () => ({
      NATS_URL: infra().natsUrl,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      SHUTDOWN_GRACE_MS: '5000',
    });
    const slow = () =>
      createService(
        { name: 'bootstrap-it', configSchema: baseEnv, module: () => SlowModule, queue: 'bootstrap-slow' },
        env(),
      );
    const ask = (id: number, ms: number) =>
      nc
        .request(
          'bootstrap-it.slow',
          JSON.stringify({ pattern: 'bootstrap-it.slow', data: { ms }, id: String(id) }),
          {
            timeout: 8000,
          },
        )
        .then(
          () => 'answered',
          (error: Error) => error.message,
        );

    it('answers the requests in hand before it closes', async () => {
      const { app } = await slow();
      const begun = slowBegun;
      const answer = ask(0, 2500);
      await waitFor(async () => slowBegun > begun, { what: 'the request in hand' });
      await app.close();
      await expect(answer).resolves.toBe('answered');
    }, 20_000);

    it('loses no request sent while it stops beside another replica', async () => {
      const [stopping, staying] = [await slow(), await slow()];
      try {
        const answers: Array<Promise<string>> = [];
        let sending = true;
        const sender = (async () => {
          // Bursts, so that some are on their way to the stopping replica when it stops; spaced so
          // that a loaded machine sends fewer, not more than the staying replica answers in time.
          for (let i = 0; sending; i += 20) {
            for (let k = 0; k < 20; k++) answers.push(ask(i + k, 20));
            await sleep(10);
          }
        })();
        await sleep(300);
        await stopping.app.close();
        await sleep(300);
        sending = false;
        await sender;
        const outcomes = await Promise.all(answers);
        expect(outcomes.filter((o) => o !== 'answered')).toEqual([]);
      } finally {
        await staying.app.close();
      }
    }, 30_000);
  });
});
