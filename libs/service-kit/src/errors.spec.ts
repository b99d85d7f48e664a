import {
  BadRequestException,
  ConflictException,
  HttpException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { AppError, COMMON_MESSAGES } from '@oasis198/contracts';
import { toEnvelope } from './errors';

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
  });

  it('hides unexpected errors behind a generic internal message and logs them', () => {
    const error = jest.fn();
    const envelope = toEnvelope(new TypeError('secret stack detail'), { error } as never);
    expect(envelope).toEqual({ code: 'INTERNAL', message: COMMON_MESSAGES.internal });
    expect(error).toHaveBeenCalledTimes(1);
  });
});
