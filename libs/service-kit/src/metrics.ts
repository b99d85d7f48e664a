import { Controller, Get, Header, Inject } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
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
