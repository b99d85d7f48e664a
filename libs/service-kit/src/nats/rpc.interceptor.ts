import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { REQUEST_DEADLINE_HEADER, REQUEST_ID_HEADER } from '@oasis198/contracts';
import { Observable, throwError } from 'rxjs';
import { CallerGaveUpError, pastDeadline, runWithRequestId } from '../request-context';
import { toEnvelope } from '../errors';
import type { Metrics } from '../metrics';

/**
 * For every NATS request: adopts the caller's request id (so logs line up across services),
 * times the handler, and counts requests in flight so shutdown can wait for them.
 *
 * A request read after its caller's deadline is dropped unhandled: the caller has answered its
 * client 503 already, so a write done now would be one the client was told failed (a replica that
 * stalled, then woke to a backlog). Clocks are taken to be in step, as the turn deadlines take them.
 * The deadline stays with the request (currentDeadline), so work it waits for is not started after
 * it either: auth's password work and rewards' public reads (WorkLine), Play now's lease. Both
 * kinds count in oasis_rpc_expired_total.
 */
@Injectable()
export class RpcContextInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const nats = context.switchToRpc().getContext<NatsContext>();
    const subject = nats.getSubject?.() ?? 'unknown';
    const headers = nats.getHeaders?.();
    const requestId = headers?.get(REQUEST_ID_HEADER);
    const deadline = Number(headers?.get(REQUEST_DEADLINE_HEADER)) || undefined;
    if (pastDeadline(deadline)) {
      this.metrics.rpcExpired.inc({ subject });
      return throwError(() => new CallerGaveUpError());
    }
    return new Observable((subscriber) =>
      runWithRequestId(
        requestId,
        () => {
          const stop = this.metrics.rpcDuration.startTimer({ subject });
          this.metrics.rpcInFlight.inc();
          let done = false;
          const finish = (outcome: string) => {
            if (done) return;
            done = true;
            this.metrics.rpcInFlight.dec();
            stop({ outcome });
          };
          const subscription = next.handle().subscribe({
            next: (value) => subscriber.next(value),
            error: (error: unknown) => {
              if (error instanceof CallerGaveUpError) this.metrics.rpcExpired.inc({ subject });
              finish(toEnvelope(error).code);
              subscriber.error(error);
            },
            complete: () => {
              finish('ok');
              subscriber.complete();
            },
          });
          return () => {
            finish('cancelled');
            subscription.unsubscribe();
          };
        },
        deadline,
      ),
    );
  }
}
