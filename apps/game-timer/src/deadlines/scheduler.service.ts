import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Requests, type DeadlineDueResponse } from '@oasis198/contracts';
import { CONFIG, LOGGER, type Logger, Metrics, natsEndpoint, RpcClient } from '@oasis198/service-kit';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { GameTimerConfig } from '../config';
import { DEADLINE_STORE, type DeadlineStore } from './deadline-store';
import { DeadlineScheduler } from './scheduler';

const PURGE_EVERY_MS = 60_000;
/** A deleted room's record is kept this long, so a late snapshot of it cannot arm anything. */
const KEEP_GONE_MS = 60 * 60_000;

/** The scheduler as a Nest provider: its rooms client, metrics, start and graceful stop. */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly rooms: RpcClient;
  private readonly scheduler: DeadlineScheduler;
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    @Inject(DEADLINE_STORE) private readonly store: DeadlineStore,
    @Inject(CONFIG) private readonly config: GameTimerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.rooms = new RpcClient(natsEndpoint(config), 'game-timer', config.ROOMS_RPC_TIMEOUT_MS, logger);
    const lateness = new Histogram({
      name: 'oasis_timer_fire_lateness_seconds',
      help: 'How long after its due time a deadline was sent to the rooms service.',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [metrics.registry],
    });
    const fired = new Counter({
      name: 'oasis_timer_deadlines_total',
      help: 'Deadlines sent to the rooms service, by kind and outcome (applied, stale, failed).',
      labelNames: ['kind', 'outcome'] as const,
      registers: [metrics.registry],
    });
    this.scheduler = new DeadlineScheduler(
      store,
      (request) => this.rooms.request<DeadlineDueResponse>(Requests.rooms.deadline, request),
      logger,
      {
        owner: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
        pollMs: config.TIMER_POLL_MS,
        lookaheadMs: config.TIMER_LOOKAHEAD_MS,
        leaseMs: config.TIMER_LEASE_MS,
        maxInFlight: config.TIMER_MAX_IN_FLIGHT,
        onFired: (entry, latenessMs, outcome) => {
          fired.inc({ kind: entry.kind, outcome });
          if (outcome !== 'failed') lateness.observe({ kind: entry.kind }, Math.max(0, latenessMs) / 1000);
        },
      },
    );
    const scheduler = this.scheduler;
    new Gauge({
      name: 'oasis_timer_armed_rooms',
      help: 'Rooms with a deadline armed in memory on this replica.',
      registers: [metrics.registry],
      collect() {
        this.set(scheduler.armedCount);
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.rooms.connect();
    await this.scheduler.start();
    this.purgeTimer = setInterval(() => {
      this.store
        .purgeGone(new Date(Date.now() - KEEP_GONE_MS))
        .catch((error) => this.logger.warn({ err: error }, 'purging deleted rooms failed'));
    }, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  /** A snapshot was stored: nothing older needs writing back; poll now if a deadline falls due within the look-ahead. */
  snapshotStored(roomId: string, version: number, dueAt: Date | undefined): void {
    this.scheduler.noteVersion(roomId, version);
    if (dueAt && dueAt.getTime() <= Date.now() + this.config.TIMER_LOOKAHEAD_MS) this.scheduler.poke();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.scheduler.stop();
    await this.rooms.close();
  }
}
