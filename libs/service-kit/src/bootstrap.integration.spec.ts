import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { useTestInfra } from '@oasis198/testing';
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
});
