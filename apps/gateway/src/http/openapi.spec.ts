import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import {
  createRewardBodySchema,
  createRoomBodySchema,
  editRewardBodySchema,
  editRoomBodySchema,
  editUserBodySchema,
  loginBodySchema,
  registerBodySchema,
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
import { GatewayLimits, LoginThrottle, RegisterThrottle } from './rate-limit';
import { openApiSchema } from './schema-body';

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
      { provide: TokenRevocations, useValue: unused },
      { provide: RoomPushService, useValue: unused },
      { provide: LeaderboardPushService, useValue: unused },
      { provide: GatewayLimits, useValue: unused },
      { provide: JwtStrategy, useValue: { name: 'jwt-document' } },
    ],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication();
  try {
    return SwaggerModule.createDocument(app, new DocumentBuilder().addBearerAuth().build());
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
      'patch /api/users/edit': ['200', '400', '401', '409', '413', '503'],
      'delete /api/users/delete': ['200', '401', '503'],
      'post /api/users/logout': ['200', '401', '503'],
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

  it('documents each push stream as events of its names, and its errors as JSON', () => {
    const stream = operation(doc, '/api/rooms/{id}/stream', 'get');
    expect(stream.responses['200']?.content).toEqual({
      'text/event-stream': {
        schema: expect.objectContaining({
          properties: expect.objectContaining({ event: { type: 'string', enum: ['room', 'room-deleted'] } }),
          required: ['event', 'data', 'id'],
        }),
      },
    });
    expect(Object.keys(stream.responses['404']?.content ?? {})).toEqual(['application/json']);
  });
});
