import { ServerNats } from '@nestjs/microservices';
import type { NatsOptions } from '@nestjs/microservices';
import type { NatsConnection, Subscription } from 'nats';
import { withTimeout } from './connection';

/**
 * The services' NATS request/reply server: Nest's, with a shutdown that loses no request.
 *
 * Nest's graceful shutdown unsubscribes, and nats.js drops what the server had already sent to a
 * subscription it no longer knows; then it waits a fixed pause, which cuts off a request that takes
 * longer. Either way a caller waits out its deadline and answers 503. Here each subscription is
 * drained (the server stops delivering, and what it delivered is still handled), then the close
 * waits until every request in hand is answered, at most `gracePeriodMs`, and flushes the replies.
 */
export class RpcServer extends ServerNats {
  private readonly inHand = new Set<unknown>();
  private answered?: () => void;

  constructor(
    options: Omit<NonNullable<NatsOptions['options']>, 'gracefulShutdown' | 'gracePeriod'>,
    private readonly gracePeriodMs: number,
  ) {
    super({ ...options, gracefulShutdown: false });
    // One context object per request, from its start to its reply (Nest passes the same one to both).
    this.setOnProcessingStartHook(async (_transport, context, done) => {
      this.inHand.add(context);
      try {
        return await done();
      } catch (error) {
        this.settle(context);
        throw error;
      }
    });
    this.setOnProcessingEndHook((_transport, context) => this.settle(context));
  }

  override async close(): Promise<void> {
    const connection = this.connection();
    if (connection) {
      // Nest keeps its subscriptions private; they are what a drain needs.
      const subscriptions = (this as unknown as { subscriptions: Subscription[] }).subscriptions;
      const deadline = Date.now() + this.gracePeriodMs;
      await within(deadline, Promise.all(subscriptions.map((sub) => sub.drain().catch(() => undefined))));
      if (this.inHand.size > 0)
        await within(deadline, new Promise<void>((resolve) => (this.answered = resolve)));
      await within(
        deadline,
        connection.flush().catch(() => undefined),
      );
    }
    await super.close();
  }

  private settle(context: unknown): void {
    this.inHand.delete(context);
    if (this.inHand.size === 0) this.answered?.();
  }

  private connection(): NatsConnection | undefined {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return undefined; // never connected
    }
  }
}

/** `work`, or nothing once `deadline` (ms since the epoch) has passed. */
const within = (deadline: number, work: Promise<unknown>): Promise<unknown> =>
  withTimeout(work, Math.max(0, deadline - Date.now()), 'shutdown grace period over').catch(() => undefined);
