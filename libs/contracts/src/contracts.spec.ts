import {
  ApiPaths,
  AppError,
  Broadcasts,
  ERROR_CODES,
  EventIds,
  EventTypes,
  gameIdOf,
  HTTP_STATUS_BY_CODE,
  isErrorEnvelope,
  Requests,
  Streams,
  Consumers,
} from './index';

describe('error envelope', () => {
  it('maps every code to the HTTP status the gateway answers', () => {
    expect(HTTP_STATUS_BY_CODE).toEqual({
      VALIDATION: 400,
      UNAUTHORIZED: 401,
      reauth_required: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      CONFLICT: 409,
      ROOM_FULL: 409,
      GONE: 410,
      PAYLOAD_TOO_LARGE: 413,
      RATE_LIMITED: 429,
      UNAVAILABLE: 503,
      INTERNAL: 500,
    });
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('recognises envelopes and refuses look-alikes', () => {
    expect(isErrorEnvelope({ code: 'CONFLICT', message: 'x' })).toBe(true);
    expect(isErrorEnvelope({ code: 'ROOM_FULL', message: 'x' })).toBe(true);
    expect(isErrorEnvelope({ code: 'reauth_required', message: 'x' })).toBe(true);
    expect(isErrorEnvelope({ code: 'TEAPOT', message: 'x' })).toBe(false);
    expect(isErrorEnvelope({ code: 'CONFLICT' })).toBe(false);
    expect(isErrorEnvelope('CONFLICT')).toBe(false);
  });

  it('round-trips an AppError through its envelope', () => {
    const error = AppError.from(new AppError('VALIDATION', 'bad', { name: 'bad' }).toEnvelope());
    expect(error).toBeInstanceOf(AppError);
    expect(error.toEnvelope()).toEqual({ code: 'VALIDATION', message: 'bad', details: { name: 'bad' } });
  });
});

describe('subjects and streams', () => {
  it('puts every event type in exactly one stream and no request subject in any', () => {
    const matches = (pattern: string, subject: string) =>
      pattern.endsWith('.>') ? subject.startsWith(pattern.slice(0, -1)) : pattern === subject;
    const streamsOf = (subject: string) =>
      Object.values(Streams).filter((s) => s.subjects.some((p) => matches(p, subject)));
    for (const type of Object.values(EventTypes)) expect(streamsOf(type)).toHaveLength(1);
    const requests = Object.values(Requests).flatMap((group) => Object.values(group));
    for (const subject of requests) expect(streamsOf(subject)).toHaveLength(0);
    expect(new Set(requests).size).toBe(requests.length);
    // Broadcasts are core NATS only: a stream capturing one would store what may be lost.
    for (const subject of Object.values(Broadcasts)) expect(streamsOf(subject)).toHaveLength(0);
  });

  it('filters each durable consumer to subjects of its stream', () => {
    for (const consumer of Object.values(Consumers)) {
      const stream = Object.values(Streams).find((s) => s.name === consumer.stream);
      expect(stream).toBeDefined();
    }
  });
});

describe('event ids', () => {
  it('are deterministic, so a re-published fact is de-duplicated', () => {
    const gameId = gameIdOf('room1', 3);
    expect(gameId).toBe('room1:3');
    expect(EventIds.gameFinished(gameId)).toBe(EventIds.gameFinished('room1:3'));
    expect(EventIds.moveMade(gameId, 4)).not.toBe(EventIds.moveMade(gameId, 5));
    expect(EventIds.roomUpdated('room1', 7)).toBe('room.updated:room1:7');
  });
});

describe('API paths', () => {
  it('follow SPEC §7 and encode ids', () => {
    expect(ApiPaths.editRoom('a/b')).toBe('/api/rooms/a%2Fb/edit');
    expect(ApiPaths.deleteReward('u1')).toBe('/api/rewards/u1/delete');
    expect(ApiPaths.register).toBe('/api/users/');
    expect(ApiPaths.playedGame('u1', 'room1:2')).toBe('/api/rewards/u1/games/room1%3A2');
  });
});
