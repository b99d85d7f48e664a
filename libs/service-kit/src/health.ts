import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  MongooseHealthIndicator,
} from '@nestjs/terminus';
import { JetStreamService } from './nats/jetstream.service';
import { Lifecycle } from './lifecycle';

/**
 * /health/live: the process answers (restart it if not).
 * /health/ready and /health: NATS answers a round trip and, for services with a database,
 * MongoDB answers a ping, and every readiness condition of the service holds (Lifecycle); false
 * while shutting down, so traffic moves elsewhere first.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly jetstream: JetStreamService,
    private readonly lifecycle: Lifecycle,
    @Inject(MongooseHealthIndicator) private readonly mongoose: MongooseHealthIndicator,
    @Inject('HAS_MONGO') private readonly hasMongo: boolean,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  @HealthCheck()
  check() {
    return this.ready();
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    if (this.lifecycle.shuttingDown) throw new ServiceUnavailableException({ status: 'shutting-down' });
    return this.health.check([
      async () => {
        const session = this.indicators.check('nats');
        try {
          await this.jetstream.ping(1000);
          return session.up();
        } catch (error) {
          return session.down({ message: (error as Error).message });
        }
      },
      ...(this.hasMongo ? [() => this.mongoose.pingCheck('mongodb', { timeout: 1500 })] : []),
      async () => {
        const reasons = this.lifecycle.notReady();
        const session = this.indicators.check('service');
        return Object.keys(reasons).length ? session.down(reasons) : session.up();
      },
    ]);
  }
}
