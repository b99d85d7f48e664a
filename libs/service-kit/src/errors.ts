import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import {
  AppError,
  COMMON_MESSAGES,
  type ErrorCode,
  type ErrorEnvelope,
  HTTP_STATUS_BY_CODE,
  isErrorEnvelope,
} from '@oasis198/contracts';
import type { Response } from 'express';
import { isConnectionTrouble } from './nats/nats-errors';
import type { Logger } from 'pino';
import { type Observable, throwError } from 'rxjs';

const CODE_BY_HTTP_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'VALIDATION',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
};

/**
 * An AppError that also tells clients when to try again: `retryAfterS` in its envelope (so it
 * crosses NATS), the `Retry-After` header over HTTP, in whole seconds.
 */
export class RetryLaterError extends AppError {
  readonly retryAfterS: number;

  constructor(code: ErrorCode, message: string, retryAfterS: number) {
    super(code, message);
    this.retryAfterS = Math.max(1, Math.ceil(retryAfterS));
  }

  override toEnvelope(): ErrorEnvelope {
    return { ...super.toEnvelope(), retryAfterS: this.retryAfterS };
  }

  /** The error an envelope stands for: a RetryLaterError when it says when to retry. */
  static fromEnvelope(envelope: ErrorEnvelope): AppError {
    return validRetryAfter(envelope.retryAfterS) !== undefined
      ? new RetryLaterError(envelope.code, envelope.message, envelope.retryAfterS as number)
      : AppError.from(envelope);
  }
}

const validRetryAfter = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;

/**
 * Turns anything a handler throws into the `{ code, message }` envelope. Expected failures
 * (AppError, envelopes, Nest HTTP exceptions with a 4xx or 503 status) keep their code and
 * message; anything else is an internal error whose details are logged, never sent.
 */
export function toEnvelope(error: unknown, logger?: Logger): ErrorEnvelope {
  if (error instanceof AppError) return error.toEnvelope();
  if (isErrorEnvelope(error)) {
    const retryAfterS = validRetryAfter(error.retryAfterS);
    return {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(retryAfterS !== undefined ? { retryAfterS: Math.ceil(retryAfterS) } : {}),
    };
  }
  if (error instanceof HttpException) {
    const code =
      CODE_BY_HTTP_STATUS[error.getStatus()] ?? (error.getStatus() < 500 ? 'VALIDATION' : undefined);
    if (code) return { code, message: httpExceptionMessage(error) };
  }
  if (isBodyParserError(error)) return bodyParserEnvelope(error);
  if (isDatabaseOutage(error)) {
    logger?.warn({ err: error }, 'the database is not reachable');
    return { code: 'UNAVAILABLE', message: COMMON_MESSAGES.unavailable };
  }
  if (isNatsOutage(error)) {
    logger?.warn({ err: error }, 'NATS or a stream leader is not reachable');
    return { code: 'UNAVAILABLE', message: COMMON_MESSAGES.unavailable };
  }
  logger?.error({ err: error }, 'unexpected error');
  return { code: 'INTERNAL', message: COMMON_MESSAGES.internal };
}

/**
 * NATS away or a JetStream stream between leaders: the connection's own errors, and "no responders"
 * (code 503), which a JetStream request gets while a node restarts and its streams elect a leader.
 * An outage, so 503, never 500.
 */
function isNatsOutage(error: unknown): boolean {
  return isConnectionTrouble(error) || (error as { code?: unknown } | null)?.code === '503';
}

/**
 * The MongoDB driver's errors for a server it cannot reach or that is going away (restarting,
 * network gone, the pool cleared while a request was on it): an outage, so 503, never 500. Names,
 * not classes: the driver exports only some of them (PoolClearedOnNetworkError, which in-flight
 * requests get when the database dies under them, is one it does not).
 */
const DATABASE_OUTAGES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoServerClosedError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
]);

/**
 * Server answers of a replica set member that is stepping down or shutting down; the driver
 * retries a write once on them, and a second one is still an outage (a failover in progress).
 */
const FAILOVER_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);

export function isDatabaseOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (DATABASE_OUTAGES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  return error.name === 'MongoServerError' && typeof code === 'number' && FAILOVER_CODES.has(code);
}

function httpExceptionMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join(' ');
  return typeof message === 'string' ? message : error.message;
}

type BodyParserError = { status: number; type?: string };

/**
 * An error of Express's body parser: http-errors with a 4xx status and a type
 * ('entity.parse.failed', 'encoding.unsupported', ...), or without one when the body did not
 * decompress (zlib's error, with its errno, which the parser marks 400 and `expose`).
 */
export function isBodyParserError(error: unknown): error is BodyParserError {
  const e = error as { status?: unknown; type?: unknown; expose?: unknown; errno?: unknown } | null;
  const zlibFailure = e?.expose === true && typeof e.errno === 'number';
  return (
    typeof e?.status === 'number' &&
    e.status >= 400 &&
    e.status < 500 &&
    (typeof e.type === 'string' || zlibFailure)
  );
}

/** Why the parser refused a body, by its error's type (none: it did not decompress). */
const BODY_REFUSALS: Readonly<Record<string, string>> = {
  'encoding.unsupported':
    'The request body must be sent uncompressed or with Content-Encoding gzip, deflate or br.',
  'charset.unsupported': 'The request body must be JSON in UTF-8.',
};

/** What a client is told of a body the parser refused: 413 when too large, else 400 with the reason. */
function bodyParserEnvelope({ status, type }: BodyParserError): ErrorEnvelope {
  if (status === 413) return { code: 'PAYLOAD_TOO_LARGE', message: COMMON_MESSAGES.tooLarge };
  const message =
    type === undefined
      ? 'The request body could not be decompressed.'
      : (BODY_REFUSALS[type] ?? 'The request body is not valid JSON.');
  return { code: 'VALIDATION', message };
}

/** What an error is over HTTP: its status, its JSON body, and when to try again (whole seconds). */
export interface HttpAnswer {
  status: number;
  body: { message: string; code: ErrorEnvelope['code']; details?: ErrorEnvelope['details'] };
  retryAfterS?: number;
}

/** An error envelope as the HTTP API answers it (AllErrorsFilter, and the gateway's room socket). */
export function httpAnswerOf(envelope: ErrorEnvelope): HttpAnswer {
  const answer: HttpAnswer = {
    status: HTTP_STATUS_BY_CODE[envelope.code],
    body: {
      message: envelope.message,
      code: envelope.code,
      ...(envelope.details ? { details: envelope.details } : {}),
    },
  };
  if (envelope.retryAfterS !== undefined) answer.retryAfterS = Math.max(1, Math.ceil(envelope.retryAfterS));
  return answer;
}

/**
 * One filter for every entry point. Over NATS an error crosses the bus as an envelope; over HTTP
 * it becomes the mapped status with a JSON `{ message, code }` body. Health checks keep their
 * own body (terminus reports which dependency is down).
 */
@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    const envelope = toEnvelope(exception, this.logger);
    if (host.getType() === 'rpc') return throwError(() => envelope);
    if (host.getType() !== 'http') return;
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    if (
      exception instanceof HttpException &&
      exception.getStatus() === 503 &&
      typeof exception.getResponse() === 'object'
    ) {
      response.status(503).json(exception.getResponse());
      return;
    }
    const answer = httpAnswerOf(envelope);
    if (answer.retryAfterS !== undefined) response.setHeader('Retry-After', String(answer.retryAfterS));
    response.status(answer.status).json(answer.body);
  }
}
