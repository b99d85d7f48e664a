import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import {
  authUserSchema,
  createRewardBodySchema,
  createRoomBodySchema,
  editRewardBodySchema,
  editRewardResponseSchema,
  editRoomBodySchema,
  editRoomResponseSchema,
  editUserBodySchema,
  editUserResponseSchema,
  forgotPasswordBodySchema,
  gameHistorySchema,
  httpErrorBodySchema,
  leaderboardPushDataSchema,
  leaderboardSchema,
  loginBodySchema,
  messageResponseSchema,
  playedGameDetailSchema,
  rankedRewardSchema,
  registerBodySchema,
  resetPasswordBodySchema,
  rewardViewSchema,
  roomGonePushDataSchema,
  roomMovesPushDataSchema,
  roomListSchema,
  roomSummarySchema,
  roomViewSchema,
} from '@oasis198/contracts';
import { EMAIL_PATTERN, PASSWORD_PATTERN, USERNAME_PATTERN } from '@oasis198/game-rules';
import { RpcClient } from '@oasis198/service-kit';
import type { z } from 'zod';
import { JwtStrategy } from '../auth/jwt.strategy';
import { TokenRevocations } from '../auth/token-revocations';
import { LeaderboardPushService } from '../rewards/leaderboard-push.service';
import { RewardsController } from '../rewards/rewards.controller';
import { RoomPushService } from '../rooms/room-push.service';
import { RoomsController } from '../rooms/rooms.controller';
import { UsersController } from '../users/users.controller';
import {
  AccountEditThrottle,
  GatewayLimits,
  LoginThrottle,
  PasswordResetThrottle,
  RegisterThrottle,
} from './rate-limit';
import { apiDocument, openApiSchema } from './openapi';

/**
 * The OpenAPI document the gateway publishes, built from its controllers as setup.ts builds it.
 * The services behind them are never called here: a document is all this reads.
 */
async function documentOf(): Promise<OpenAPIObject> {
  const unused = {};
  const moduleRef = await Test.createTestingModule({
    controllers: [UsersController, RoomsController, RewardsController],
    providers: [
      { provide: RpcClient, useValue: unused },
      { provide: LoginThrottle, useValue: unused },
      { provide: RegisterThrottle, useValue: unused },
      { provide: AccountEditThrottle, useValue: unused },
      { provide: PasswordResetThrottle, useValue: unused },
      { provide: TokenRevocations, useValue: unused },
      { provide: RoomPushService, useValue: unused },
      { provide: LeaderboardPushService, useValue: unused },
      { provide: GatewayLimits, useValue: unused },
      { provide: JwtStrategy, useValue: { name: 'jwt-document' } },
    ],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication();
  try {
    return apiDocument(app);
  } finally {
    await app.close();
  }
}

type Operation = {
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
};
const operation = (doc: OpenAPIObject, path: string, method: string): Operation =>
  (doc.paths[path] as Record<string, Operation>)[method] as Operation;

/** A part of the document with every $ref to its components replaced by what it names. */
function resolved(doc: OpenAPIObject, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(doc, item));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref } = value as { $ref?: unknown };
  if (typeof $ref === 'string') {
    const name = $ref.replace('#/components/schemas/', '');
    return resolved(doc, doc.components?.schemas?.[name]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolved(doc, item)]));
}

/** The schema a status of a route answers as JSON, its $refs resolved. */
const answerOf = (doc: OpenAPIObject, route: string, status: string): unknown => {
  const [method, path] = route.split(' ') as [string, string];
  return resolved(doc, operation(doc, path, method).responses[status]?.content?.['application/json']?.schema);
};

describe('the OpenAPI document', () => {
  let doc: OpenAPIObject;
  beforeAll(async () => {
    doc = await documentOf();
  });

  it('states every body with the contracts schema the gateway validates it with', () => {
    const bodies: Array<[string, string, z.ZodType]> = [
      ['/api/users/login', 'post', loginBodySchema],
      ['/api/users', 'post', registerBodySchema],
      ['/api/users/edit', 'patch', editUserBodySchema],
      ['/api/users/forgot-password', 'post', forgotPasswordBodySchema],
      ['/api/users/reset-password', 'post', resetPasswordBodySchema],
      ['/api/rooms', 'post', createRoomBodySchema],
      ['/api/rooms/{id}/edit', 'patch', editRoomBodySchema],
      ['/api/rewards', 'post', createRewardBodySchema],
      ['/api/rewards/{id}/edit', 'patch', editRewardBodySchema],
    ];
    for (const [path, method, schema] of bodies) {
      expect([path, operation(doc, path, method).requestBody?.content['application/json']?.schema]).toEqual([
        path,
        openApiSchema(schema),
      ]);
    }
  });

  it('carries the rules of SPEC §5: lengths and patterns, no unknown fields', () => {
    const register = operation(doc, '/api/users', 'post').requestBody?.content['application/json']?.schema;
    expect(register).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'email', 'password', 'confirmedPassword'],
      properties: {
        name: { type: 'string', pattern: USERNAME_PATTERN.source },
        email: { type: 'string', minLength: 6, maxLength: 32, pattern: EMAIL_PATTERN.source },
        password: { type: 'string', pattern: PASSWORD_PATTERN.source },
      },
    });
    const create = operation(doc, '/api/rooms', 'post').requestBody?.content['application/json']?.schema;
    expect(create).toMatchObject({
      properties: {
        duration: { enum: [14, 32, 60, 300] },
        createdBy: { properties: { id: { minLength: 1, maxLength: 64 } } },
      },
    });
    const list = (doc.paths['/api/rewards'] as { get: { parameters: object[] } }).get.parameters;
    expect(list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'page',
          in: 'query',
          schema: expect.objectContaining({ type: 'integer' }),
        }),
        expect.objectContaining({
          name: 'pageSize',
          schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100 }),
        }),
      ]),
    );
  });

  it('lists every status each route can answer (503 on all: a service did not answer in time)', () => {
    const expected: Record<string, string[]> = {
      'post /api/users/login': ['200', '400', '413', '429', '503'],
      'post /api/users': ['201', '400', '409', '413', '429', '503'],
      'patch /api/users/edit': ['200', '400', '401', '409', '413', '429', '503'],
      'delete /api/users/delete': ['200', '401', '503'],
      'post /api/users/logout': ['200', '401', '429', '503'],
      'post /api/users/forgot-password': ['202', '400', '413', '429', '503'],
      'post /api/users/reset-password': ['200', '400', '410', '413', '429', '503'],
      'post /api/rooms': ['201', '400', '401', '403', '409', '413', '429', '503'],
      'post /api/rooms/play-now': ['200', '401', '409', '429', '503'],
      'get /api/rooms': ['200', '400', '503'],
      'get /api/rooms/mine': ['200', '401', '404', '503'],
      'get /api/rooms/stream': ['200', '429', '503'],
      'get /api/rooms/{id}/stream': ['200', '404', '429', '503'],
      'get /api/rooms/{id}': ['200', '404', '503'],
      'patch /api/rooms/{id}/edit': ['200', '400', '401', '403', '404', '409', '413', '429', '503'],
      'delete /api/rooms/{id}/delete': ['200', '401', '403', '404', '409', '429', '503'],
      'get /api/rewards': ['200', '400', '503'],
      'get /api/rewards/stream': ['200', '429', '503'],
      'get /api/rewards/{userId}': ['200', '404', '503'],
      'get /api/rewards/{userId}/games': ['200', '404', '503'],
      'get /api/rewards/{userId}/games/{gameId}': ['200', '404', '503'],
      'post /api/rewards': ['201', '400', '401', '403', '413', '429', '503'],
      'patch /api/rewards/{id}/edit': ['200', '400', '401', '403', '404', '413', '429', '503'],
      'delete /api/rewards/{id}/delete': ['200', '401', '403', '404', '429', '503'],
    };
    const documented = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item as Record<string, Operation>).map(([method, op]) => [
          `${method} ${path}`,
          Object.keys(op.responses).sort(),
        ]),
      ),
    );
    expect(documented).toEqual(expected);
  });

  it('states every answer with the contracts schema of what the gateway sends (its output)', () => {
    const answers: Array<[string, string, z.ZodType]> = [
      ['post /api/users/login', '200', authUserSchema],
      ['post /api/users', '201', authUserSchema],
      ['patch /api/users/edit', '200', editUserResponseSchema],
      ['delete /api/users/delete', '200', messageResponseSchema],
      ['post /api/users/logout', '200', messageResponseSchema],
      ['post /api/users/forgot-password', '202', messageResponseSchema],
      ['post /api/users/reset-password', '200', messageResponseSchema],
      ['post /api/rooms', '201', roomViewSchema],
      ['post /api/rooms/play-now', '200', roomViewSchema],
      ['get /api/rooms', '200', roomListSchema],
      ['get /api/rooms/mine', '200', roomViewSchema],
      ['get /api/rooms/{id}', '200', roomViewSchema],
      ['patch /api/rooms/{id}/edit', '200', editRoomResponseSchema],
      ['delete /api/rooms/{id}/delete', '200', messageResponseSchema],
      ['get /api/rewards', '200', leaderboardSchema],
      ['get /api/rewards/{userId}', '200', rankedRewardSchema],
      ['get /api/rewards/{userId}/games', '200', gameHistorySchema],
      ['get /api/rewards/{userId}/games/{gameId}', '200', playedGameDetailSchema],
      ['post /api/rewards', '201', rewardViewSchema],
      ['patch /api/rewards/{id}/edit', '200', editRewardResponseSchema],
      ['delete /api/rewards/{id}/delete', '200', messageResponseSchema],
    ];
    for (const [route, status, schema] of answers) {
      expect([route, answerOf(doc, route, status)]).toEqual([route, openApiSchema(schema, 'output')]);
    }
    // Every error of every route is the one envelope.
    const errorBody = openApiSchema(httpErrorBodySchema, 'output');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
        for (const status of Object.keys(op.responses).filter((code) => Number(code) >= 400)) {
          const route = `${method} ${path}`;
          expect([route, status, answerOf(doc, route, status)]).toEqual([route, status, errorBody]);
        }
      }
    }
  });

  it("states the room list as SPEC §7's list, with how many match in X-Total-Count", () => {
    const list = operation(doc, '/api/rooms', 'get').responses['200'] as {
      headers?: Record<string, { schema: unknown }>;
    };
    expect(answerOf(doc, 'get /api/rooms', '200')).toMatchObject({ type: 'array' });
    expect(list.headers?.['X-Total-Count']?.schema).toEqual({ type: 'integer', minimum: 0 });
  });

  it('states a room exactly: integers, nulls, and the fields that are always there', () => {
    const room = answerOf(doc, 'get /api/rooms/{id}', '200') as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(room.additionalProperties).toBe(false);
    expect([...room.required].sort()).toEqual(
      [
        '_id',
        'name',
        'roomNumber',
        'gameType',
        'createdBy',
        'duration',
        'hasPassCode',
        'players',
        'gameStarted',
        'gameOver',
        'aiCommit',
        'aiSeed',
        'whosTurn',
        'version',
        'createdAt',
        'serverNow',
        'waitingSince',
        'aiOpponent',
        'aiJoinsAt',
      ].sort(),
    );
    expect(room.properties).toMatchObject({
      roomNumber: { type: 'integer' },
      version: { type: 'integer', minimum: 0 },
      duration: { type: 'integer', enum: [14, 32, 60, 300] },
      aiCommit: { type: 'string', nullable: true, pattern: '^[0-9a-f]{64}$' },
      waitingSince: { type: 'number', nullable: true },
      createdAt: { type: 'string', format: 'date-time' },
      whosTurn: {
        additionalProperties: false,
        properties: {
          currentNumber: { type: 'integer' },
          specialRandom: { type: 'integer', nullable: true },
          moves: { items: { properties: { number: { type: 'integer', minimum: 1, maximum: 9 } } } },
          winner: { enum: ['player1', 'player2'], nullable: true },
        },
      },
    });
  });

  it('documents each push stream as events of its names with the schema of their data, and its errors as JSON', () => {
    type Event = {
      properties: { event: { enum: string[] }; data: { contentSchema: unknown } };
      required: string[];
    };
    /** Each event a stream's 200 states: its name, the schema of its data and its required fields. */
    const eventsOf = (path: string) => {
      const schema = operation(doc, path, 'get').responses['200']?.content?.['text/event-stream']?.schema as
        (Event & { oneOf?: Event[] }) | undefined;
      return (schema?.oneOf ?? [schema as Event]).map((event) => [
        event.properties.event.enum,
        event.properties.data.contentSchema,
        event.required,
      ]);
    };
    const withId = ['event', 'data', 'id'];
    expect(eventsOf('/api/rooms/{id}/stream')).toEqual([
      [['room'], openApiSchema(roomViewSchema, 'output'), withId],
      [['room-moves'], openApiSchema(roomMovesPushDataSchema, 'output'), withId],
      [['room-deleted'], openApiSchema(roomGonePushDataSchema, 'output'), withId],
    ]);
    expect(eventsOf('/api/rooms/stream')).toEqual([
      [['room'], openApiSchema(roomSummarySchema, 'output'), withId],
      [['room-deleted'], openApiSchema(roomGonePushDataSchema, 'output'), withId],
    ]);
    expect(eventsOf('/api/rewards/stream')).toEqual([
      [['leaderboard'], openApiSchema(leaderboardPushDataSchema, 'output'), ['event', 'data']],
    ]);
    const stream = operation(doc, '/api/rooms/{id}/stream', 'get');
    expect(Object.keys(stream.responses['404']?.content ?? {})).toEqual(['application/json']);
  });
});
