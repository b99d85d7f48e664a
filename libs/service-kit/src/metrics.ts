import { Controller, Get, Header, Inject } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Runs `work` and observes its time in `histogram` under `labels`, whether it resolves or throws:
 * a step that failed took its time too.
 */
export async function timed<L extends string, T>(
  histogram: Histogram<L>,
  labels: Partial<Record<L, string | number>>,
  work: () => Promise<T>,
): Promise<T> {
  const end = histogram.startTimer(labels);
  try {
    return await work();
  } finally {
    end();
  }
}

/**
 * A per-service Prometheus registry (not the global one, so several services can run in one
 * process in tests) with the metrics every service shares. Services add their own to `registry`.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly rpcDuration = new Histogram({
    name: 'oasis_rpc_duration_seconds',
    help: 'Time to handle a NATS request, by subject and outcome (ok or an error code).',
    labelNames: ['subject', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly rpcInFlight = new Gauge({
    name: 'oasis_rpc_in_flight',
    help: 'NATS requests being handled now.',
    registers: [this.registry],
  });

  readonly rpcExpired = new Counter({
    name: 'oasis_rpc_expired_total',
    help: 'NATS requests dropped, by subject: their caller had stopped waiting before the service read them, or before queued work for them (argon2) could start.',
    labelNames: ['subject'] as const,
    registers: [this.registry],
  });

  readonly eventDuration = new Histogram({
    name: 'oasis_event_handle_duration_seconds',
    help: 'Time to handle a JetStream event, by consumer, event type and outcome (ok, retry, terminated).',
    labelNames: ['consumer', 'type', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  readonly eventsPublished = new Counter({
    name: 'oasis_events_published_total',
    help: 'JetStream events published, by type and whether the stream saw a duplicate msg-id.',
    labelNames: ['type', 'duplicate'] as const,
    registers: [this.registry],
  });

  readonly outboxPending = new Gauge({
    name: 'oasis_outbox_pending_events',
    help: 'Events stored in documents but not yet published, as last seen by the outbox relay.',
    registers: [this.registry],
  });

  // How full the streams this service publishes to are (JetStreamService.watchCapacity).
  readonly streamBytesRatio = this.streamGauge(
    'oasis_stream_bytes_ratio',
    "How full a JetStream stream is: its bytes / its max_bytes (discard new: at 1 it refuses new events). Refreshed every STREAM_CHECK_MS by the stream's publisher.",
  );
  readonly streamBytes = this.streamGauge('oasis_stream_bytes', 'Bytes stored in a JetStream stream.');
  readonly streamMessages = this.streamGauge(
    'oasis_stream_messages',
    'Messages stored in a JetStream stream.',
  );
  readonly streamFull = this.streamGauge(
    'oasis_stream_full',
    '1 while the service counts a stream as full and refuses changes that would publish to it (503).',
  );

  readonly deadLetters = new Counter({
    name: 'oasis_outbox_dead_letters_total',
    help: 'Outbox events moved to the dead letters after JetStream kept refusing them, by event type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly deadLettersWaiting = new Gauge({
    name: 'oasis_outbox_dead_letters_waiting',
    help: "Dead letters in the service's database waiting to be replayed (replay-dead-letters), as last counted.",
    registers: [this.registry],
  });

  readonly databaseCommands = new Histogram({
    name: 'oasis_db_command_duration_seconds',
    help: 'Time of a database command as the driver saw it, by command (find, findAndModify, update, ...) and outcome (ok or failed).',
    labelNames: ['command', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Times every command the connection's driver sends (its command monitoring, which the connection
   * must be opened with): how many database round trips a request costs, and how long they take.
   */
  watchDatabase(connection: Connection): void {
    const client = connection.getClient();
    const observe = (event: { commandName: string; duration: number }, outcome: 'ok' | 'failed') =>
      this.databaseCommands.observe({ command: event.commandName, outcome }, event.duration / 1000);
    client.on('commandSucceeded', (event) => observe(event, 'ok'));
    client.on('commandFailed', (event) => observe(event, 'failed'));
  }

  private streamGauge(name: string, help: string): Gauge<'stream'> {
    return new Gauge({ name, help, labelNames: ['stream'] as const, registers: [this.registry] });
  }
}

@Controller()
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
