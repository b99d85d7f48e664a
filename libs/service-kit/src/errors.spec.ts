import {
  BadRequestException,
  ConflictException,
  HttpException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { AppError, COMMON_MESSAGES, rateLimitedMessage } from '@oasis198/contracts';
import mongoose from 'mongoose';
import { AllErrorsFilter, RetryLaterError, toEnvelope } from './errors';

// The classes a request meets when the pool is cleared under it; the driver's index does not
// export them, nor types this module.
type PoolError = new (pool: { address: string }) => Error;
const { PoolClearedError, PoolClearedOnNetworkError } = require('mongodb/lib/cmap/errors') as {
  PoolClearedError: PoolError;
  PoolClearedOnNetworkError: PoolError;
};

describe('toEnvelope', () => {
  it('keeps the code, message and details of an AppError', () => {
    expect(toEnvelope(new AppError('CONFLICT', 'taken', { email: 'taken' }))).toEqual({
      code: 'CONFLICT',
      message: 'taken',
      details: { email: 'taken' },
    });
  });

  it('passes an envelope that crossed the bus through', () => {
    expect(toEnvelope({ code: 'NOT_FOUND', message: 'gone' })).toEqual({
      code: 'NOT_FOUND',
      message: 'gone',
    });
  });

  it('maps Nest HTTP exceptions to codes and joins validation messages', () => {
    expect(toEnvelope(new BadRequestException(['a is bad', 'b is bad']))).toEqual({
      code: 'VALIDATION',
      message: 'a is bad b is bad',
    });
    expect(toEnvelope(new ConflictException('dup')).code).toBe('CONFLICT');
    expect(toEnvelope(new ServiceUnavailableException()).code).toBe('UNAVAILABLE');
    expect(toEnvelope(new HttpException('teapot', 418)).code).toBe('VALIDATION');
  });

  it('maps body-parser errors to 413 and 400 codes', () => {
    expect(toEnvelope({ status: 413, type: 'entity.too.large' }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(toEnvelope({ status: 400, type: 'entity.parse.failed' }).code).toBe('VALIDATION');
    // A body that does not decompress: the zlib error, marked 400 by the parser, with no type.
    const zlib = Object.assign(new Error('incorrect header check'), {
      code: 'Z_DATA_ERROR',
      errno: -3,
      status: 400,
      expose: true,
    });
    expect(toEnvelope(zlib)).toEqual({
      code: 'VALIDATION',
      message: 'The request body could not be decompressed.',
    });
    expect(toEnvelope({ status: 415, type: 'charset.unsupported' })).toEqual({
      code: 'VALIDATION',
      message: 'The request body must be JSON in UTF-8.',
    });
    // An error with a 4xx status that http-errors did not make public is not the client's.
    const hidden = Object.assign(new Error('x'), { status: 400 });
    expect(toEnvelope(hidden, { error: jest.fn() } as never).code).toBe('INTERNAL');
  });

  it('hides unexpected errors behind a generic internal message and logs them', () => {
    const error = jest.fn();
    const envelope = toEnvelope(new TypeError('secret stack detail'), { error } as never);
    expect(envelope).toEqual({ code: 'INTERNAL', message: COMMON_MESSAGES.internal });
    expect(error).toHaveBeenCalledTimes(1);
  });
});

describe('database outages', () => {
  // The driver's own error classes, as a request meets them when the database dies under it.
  const driver = mongoose.mongo;
  const outages: Error[] = [
    new driver.MongoNetworkError('connection 5 to 10.89.0.17:27017 closed'),
    new driver.MongoNetworkTimeoutError('timed out'),
    new driver.MongoServerSelectionError('Server selection timed out', {} as never),
    new PoolClearedOnNetworkError({ address: 'mongo:27017' }),
    new PoolClearedError({ address: 'mongo:27017' }),
    new driver.MongoServerClosedError(),
    new driver.MongoTopologyClosedError(),
    new driver.MongoNotConnectedError('not connected'),
    new driver.MongoServerError({ code: 11600, errmsg: 'interrupted at shutdown' }),
    new driver.MongoServerError({ code: 10107, errmsg: 'not primary' }),
  ];

  it.each(outages.map((error) => [`${error.name}${'code' in error ? ` ${String(error.code)}` : ''}`, error]))(
    'answers 503, not 500, to %s (a restart, a lost connection, a failover)',
    (_name, error) => {
      expect(toEnvelope(error)).toEqual({ code: 'UNAVAILABLE', message: COMMON_MESSAGES.unavailable });
    },
  );

  it('keeps other database errors internal (a bad query is a bug, not an outage)', () => {
    const error = jest.fn();
    const bug = new driver.MongoServerError({ code: 2, errmsg: 'unknown operator: $bad' });
    expect(toEnvelope(bug, { error } as never)).toEqual({
      code: 'INTERNAL',
      message: COMMON_MESSAGES.internal,
    });
    expect(error).toHaveBeenCalledTimes(1);
  });
});

describe('NATS outages', () => {
  // As nats.js throws them: a JetStream request while a stream elects a leader, a lost connection.
  const natsError = (code: string) => Object.assign(new Error(code), { name: 'NatsError', code });

  it.each(['503', 'TIMEOUT', 'DISCONNECT', 'CONNECTION_CLOSED'])(
    'answers 503, not 500, to a NatsError %s (a node restarting, streams moving leader)',
    (code) => {
      expect(toEnvelope(natsError(code))).toEqual({
        code: 'UNAVAILABLE',
        message: COMMON_MESSAGES.unavailable,
      });
    },
  );

  it('keeps other NATS errors internal', () => {
    expect(toEnvelope(natsError('BAD_JSON'), { error: jest.fn() } as never).code).toBe('INTERNAL');
  });
});

describe('Retry-After across NATS', () => {
  it('puts retryAfterS (whole seconds) into the envelope of a RetryLaterError, and keeps it when the envelope is passed on', () => {
    const envelope = toEnvelope(new RetryLaterError('RATE_LIMITED', rateLimitedMessage(13), 12.2));
    expect(envelope).toEqual({ code: 'RATE_LIMITED', message: rateLimitedMessage(13), retryAfterS: 13 });
    // The envelope as it arrives over the bus (plain JSON), passed on by the gateway.
    expect(toEnvelope(JSON.parse(JSON.stringify(envelope)))).toEqual(envelope);
    expect(toEnvelope({ code: 'RATE_LIMITED', message: 'x', retryAfterS: 'soon' })).toEqual({
      code: 'RATE_LIMITED',
      message: 'x',
    });
  });

  it('turns an envelope with retryAfterS back into a RetryLaterError, and others into plain AppErrors', () => {
    const again = RetryLaterError.fromEnvelope({ code: 'RATE_LIMITED', message: 'wait', retryAfterS: 30 });
    expect(again).toBeInstanceOf(RetryLaterError);
    expect(again).toMatchObject({ code: 'RATE_LIMITED', message: 'wait', retryAfterS: 30 });
    const plain = RetryLaterError.fromEnvelope({ code: 'FORBIDDEN', message: 'no' });
    expect(plain).toBeInstanceOf(AppError);
    expect(plain).not.toBeInstanceOf(RetryLaterError);
  });

  it('answers HTTP with the Retry-After header of the envelope', () => {
    const headers: Record<string, string> = {};
    let status = 0;
    let body: unknown;
    const response = {
      headersSent: false,
      setHeader: (name: string, value: string) => (headers[name] = value),
      status(code: number) {
        status = code;
        return this;
      },
      json: (value: unknown) => (body = value),
    };
    const host = { getType: () => 'http', switchToHttp: () => ({ getResponse: () => response }) };
    new AllErrorsFilter({ error: jest.fn() } as never).catch(
      RetryLaterError.fromEnvelope({ code: 'RATE_LIMITED', message: 'wait', retryAfterS: 599 }),
      host as never,
    );
    expect(status).toBe(429);
    expect(headers).toEqual({ 'Retry-After': '599' });
    expect(body).toEqual({ message: 'wait', code: 'RATE_LIMITED' });
  });
});
