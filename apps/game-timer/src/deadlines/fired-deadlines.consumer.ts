import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Consumers, type DeadlineDueResponse, Requests } from '@oasis198/contracts';
import {
  CONFIG,
  decodeSchedule,
  ensureConsumer,
  JetStreamService,
  LOGGER,
  type Logger,
  Metrics,
  natsEndpoint,
  PULL_EXPIRES_MS,
  RpcClient,
  type RoomSchedule,
  ScheduleStore,
  takeUntilStopped,
} from '@oasis198/service-kit';
import type { ConsumerMessages, JsMsg } from 'nats';
import { Counter, Histogram } from 'prom-client';
import type { GameTimerConfig } from '../config';
import { planAnswer, planFired, rpcRetryMs } from './schedule';

/** Fired deadlines asked for at a time (the rest wait on the server). */
const PULL_BATCH = 512;
/** A deadline still 'not due' after this many deliveries is logged (clocks apart), then every NOT_DUE_LOG_EVERY. */
const NOT_DUE_LOG_AFTER = 20;
const NOT_DUE_LOG_EVERY = 60;
/** Beyond the lead, how early a fired deadline may arrive and still be held here (the server's 250 ms tick, and some). */
const HOLD_SLACK_MS = 500;

/**
 * Turns fired schedules into rooms.deadline requests. The fired deadlines of every room arrive
 * on one durable consumer shared by the replicas, so each goes to one replica; it stays with
 * that replica until acked, and goes to another if the replica dies (after the ack wait). Those
 * the rooms service cannot take yet are handed back to the server with a delay (nak): nothing is
 * dropped, and nothing waits here but a deadline that arrived early, for the last fraction of a
 * second before it is due.
 */
@Injectable()
export class FiredDeadlinesConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rooms: RpcClient;
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private stopping = false;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly handling = new Set<Promise<void>>();
  /** Fired deadlines that arrived early (the lead), each held until its due time. */
  private readonly held = new Map<NodeJS.Timeout, JsMsg>();
  private readonly lateness: Histogram<'kind'>;
  private readonly fireDelay: Histogram;
  private readonly fired: Counter<'kind' | 'outcome'>;

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly store: ScheduleStore,
    @Inject(CONFIG) private readonly config: GameTimerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.rooms = new RpcClient(natsEndpoint(config), 'game-timer', config.ROOMS_RPC_TIMEOUT_MS, logger);
    this.lateness = new Histogram({
      name: 'oasis_timer_fire_lateness_seconds',
      help: 'How long after its due time a deadline was sent to the rooms service.',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [metrics.registry],
    });
    // Above TIMER_SCHEDULE_LEAD_MS, the deadlines arrive late: the server's scheduler runs every
    // 250 ms at best, and at thousands of deadlines a second each run takes a while.
    this.fireDelay = new Histogram({
      name: 'oasis_timer_fired_delay_seconds',
      help: 'How long after the time its schedule was set to fire a deadline reached a replica (first deliveries).',
      buckets: [0.1, 0.25, 0.4, 0.5, 0.75, 1, 2, 5],
      registers: [metrics.registry],
    });
    this.fired = new Counter({
      name: 'oasis_timer_deadlines_total',
      help: 'Deadlines sent to the rooms service, by kind and outcome (applied, stale, not-due, failed).',
      labelNames: ['kind', 'outcome'] as const,
      registers: [metrics.registry],
    });
  }

  /** How long a delivered deadline may stay unacked before the server gives it to another replica. */
  get ackWaitMs(): number {
    return Math.max(10_000, 3 * this.config.ROOMS_RPC_TIMEOUT_MS);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.rooms.connect();
    const jsm = await this.jetstream.nc.jetstreamManager();
    await ensureConsumer(jsm, { ...Consumers.timerFired, ackWaitS: this.ackWaitMs / 1000 }, this.logger);
    const { stream, durable } = Consumers.timerFired;
    const consumer = await this.jetstream.nc.jetstream().consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: PULL_BATCH, expires: PULL_EXPIRES_MS });
    const messages = this.messages;
    this.loop = takeUntilStopped(
      messages,
      () => this.stopping,
      (msg) => this.take(msg),
    ).catch((error) => this.logger.error({ err: error }, 'fired deadlines consumer stopped'));
  }

  /** Stops taking deadlines, hands back what is buffered, and lets the ones being sent finish. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.messages?.stop();
    // Held until due: back to the server now, for another replica (or this one's successor).
    for (const [timer, msg] of this.held) {
      clearTimeout(timer);
      msg.nak();
    }
    this.held.clear();
    await this.loop;
    await Promise.allSettled([...this.handling]);
    await this.rooms.close();
  }

  /**
   * One fired deadline. Early (the lead): held here until due, unacked, so the server gives it to
   * another replica if this one dies meanwhile; more than the lead early (a clock step): back to
   * the server with the delay. Due: waits for a free slot (so at most TIMER_MAX_IN_FLIGHT
   * deadlines are with the rooms service at once, and the consumer does not pull more
   * meanwhile), then is sent without holding up the next one.
   */
  private async take(msg: JsMsg): Promise<void> {
    const schedule = decodeSchedule(msg.data);
    if (!schedule) {
      this.logger.error({ subject: msg.subject, seq: msg.seq }, 'undecodable fired deadline terminated');
      msg.term('undecodable');
      return;
    }
    const now = Date.now();
    const first = schedule.deadlines[0];
    if (first && !msg.info.redelivered) {
      this.fireDelay.observe(Math.max(0, now - (first.dueAtMs - this.config.TIMER_SCHEDULE_LEAD_MS)) / 1000);
    }
    const plan = planFired(schedule, now);
    if ('nothing' in plan) {
      msg.ack();
      return;
    }
    if ('waitMs' in plan) {
      this.holdOrReturn(msg, schedule, plan.waitMs);
      return;
    }
    await this.dispatch(msg, schedule);
  }

  /**
   * The server fires a schedule up to 250 ms after its time (its scheduler's tick), so schedules
   * are set TIMER_SCHEDULE_LEAD_MS early and the last stretch is waited here: measured, a nak
   * with that delay costs a second delivery per deadline and came out several times later at
   * 2,000 deadlines/s (docs/adr/0008-game-timer-on-message-schedules.md).
   */
  private holdOrReturn(msg: JsMsg, schedule: RoomSchedule, waitMs: number): void {
    if (this.stopping || waitMs > this.config.TIMER_SCHEDULE_LEAD_MS + HOLD_SLACK_MS) {
      msg.nak(waitMs);
      return;
    }
    const timer = setTimeout(() => {
      this.held.delete(timer);
      const plan = planFired(schedule, Date.now());
      if ('waitMs' in plan) this.holdOrReturn(msg, schedule, plan.waitMs);
      else void this.dispatch(msg, schedule);
    }, waitMs);
    this.held.set(timer, msg);
  }

  private async dispatch(msg: JsMsg, schedule: RoomSchedule): Promise<void> {
    await this.slot();
    msg.working();
    const run = this.send(msg, schedule).finally(() => {
      this.handling.delete(run);
      this.release();
    });
    this.handling.add(run);
  }

  private async send(msg: JsMsg, schedule: RoomSchedule): Promise<void> {
    const plan = planFired(schedule, Date.now());
    if ('nothing' in plan) {
      msg.ack();
      return;
    }
    if ('waitMs' in plan) {
      msg.nak(plan.waitMs);
      return;
    }
    const { request, latenessMs } = plan;
    const deliveries = msg.info.redeliveryCount;
    let answer: DeadlineDueResponse;
    try {
      answer = await this.rooms.request<DeadlineDueResponse>(Requests.rooms.deadline, request);
    } catch (error) {
      // The rooms service is away (or failed): the deadline goes back to the server, to be sent again.
      const retryInMs = rpcRetryMs(deliveries);
      this.fired.inc({ kind: request.kind, outcome: 'failed' });
      this.logger.warn(
        { err: error, roomId: request.roomId, kind: request.kind, deliveries, retryInMs },
        'rooms did not take a due deadline; will retry',
      );
      msg.nak(retryInMs);
      return;
    }
    const next = planAnswer(schedule, answer, Date.now());
    if ('retryInMs' in next) {
      this.fired.inc({ kind: request.kind, outcome: 'not-due' });
      if (
        deliveries === NOT_DUE_LOG_AFTER ||
        (deliveries > NOT_DUE_LOG_AFTER && deliveries % NOT_DUE_LOG_EVERY === 0)
      ) {
        this.logger.warn(
          { roomId: request.roomId, kind: request.kind, deliveries, lateByOurClockMs: latenessMs },
          'rooms keeps saying a deadline is not due yet (are the clocks apart?); still asking',
        );
      }
      msg.nak(next.retryInMs);
      return;
    }
    this.fired.inc({ kind: request.kind, outcome: next.outcome });
    this.lateness.observe({ kind: request.kind }, Math.max(0, latenessMs) / 1000);
    if (next.rest) {
      try {
        await this.store.writeRest(next.rest);
      } catch (error) {
        // Not acked: the same deadline comes back, is answered alike, and the rest is written then.
        this.logger.warn(
          { err: error, roomId: request.roomId },
          'scheduling the next deadline failed; will retry',
        );
        msg.nak(rpcRetryMs(deliveries));
        return;
      }
    }
    msg.ack();
  }

  private async slot(): Promise<void> {
    if (this.inFlight < this.config.TIMER_MAX_IN_FLIGHT) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A freed slot passes to the next in line. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}
