import type { INestApplication } from '@nestjs/common';
import {
  ApiResponse,
  type ApiResponseOptions,
  DocumentBuilder,
  type OpenAPIObject,
  type ReferenceObject,
  type SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import {
  authUserSchema,
  editRewardResponseSchema,
  editRoomResponseSchema,
  editUserResponseSchema,
  gameHistorySchema,
  httpErrorBodySchema,
  leaderboardSchema,
  messageResponseSchema,
  moveRecordSchema,
  personSchema,
  playedGameDetailSchema,
  playedGameSchema,
  rankedRewardSchema,
  rewardViewSchema,
  roomListSchema,
  roomViewSchema,
} from '@oasis198/contracts';
import { z } from 'zod';

/**
 * The OpenAPI document states every body with the zod schema of libs/contracts it is validated
 * with (requests) or whose inferred type the gateway answers (responses): z.toJSONSchema for
 * OpenAPI 3.0, io 'input' for what a client may send, 'output' for what it gets.
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): SchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io });
  return json as SchemaObject;
}

/** The answer bodies several routes share, named in the document's components.schemas. */
const COMPONENTS = {
  ErrorBody: httpErrorBodySchema,
  Person: personSchema,
  MoveRecord: moveRecordSchema,
  AuthUser: authUserSchema,
  EditUserResponse: editUserResponseSchema,
  Message: messageResponseSchema,
  RoomView: roomViewSchema,
  RoomList: roomListSchema,
  EditRoomResponse: editRoomResponseSchema,
  RewardView: rewardViewSchema,
  RankedReward: rankedRewardSchema,
  Leaderboard: leaderboardSchema,
  EditRewardResponse: editRewardResponseSchema,
  PlayedGame: playedGameSchema,
  GameHistory: gameHistorySchema,
  PlayedGameDetail: playedGameDetailSchema,
} satisfies Record<string, z.ZodType>;

const components = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(COMPONENTS)) components.add(schema, { id });

const componentRef = (id: string): string => `#/components/schemas/${id}`;

/** The named answer bodies as the document's components (a body inside another is a $ref to it). */
export function responseComponents(): Record<string, SchemaObject> {
  const { schemas } = z.toJSONSchema(components, {
    target: 'openapi-3.0',
    io: 'output',
    uri: componentRef,
  });
  // zod names each one with $id, which OpenAPI 3.0 does not have: the components' keys name them.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $id: _id, ...json }]) => [id, json as SchemaObject]),
  );
}

/** An answer body as the document states it: a $ref to its component, or the schema inline. */
export function responseSchema(schema: z.ZodType): SchemaObject | ReferenceObject {
  const id = components.get(schema)?.id;
  return id ? { $ref: componentRef(id) } : openApiSchema(schema, 'output');
}

/** The JSON answer of a status, stated by its contracts schema. */
export const ApiAnswer = (
  status: number,
  schema: z.ZodType,
  description?: string,
  extra: Pick<ApiResponseOptions, 'headers'> = {},
) => ApiResponse({ status, description, schema: responseSchema(schema) as SchemaObject, ...extra });

/** An error answer: the one error envelope (httpErrorBodySchema) with this status. */
export const ApiError = (
  status: number,
  description?: string,
  extra: Pick<ApiResponseOptions, 'headers'> = {},
) => ApiAnswer(status, httpErrorBodySchema, description, extra);

/**
 * The 200 of a Server-Sent Events stream. In OpenAPI 3.0 the media type's schema describes one
 * event: its `event` name, its `data` (JSON text, whose schema is its contentSchema, one per event
 * name) and, where the stream has one, its `id` (the room version).
 */
export const ApiEventStream = (
  description: string,
  events: Readonly<Record<string, z.ZodType>>,
  withId = false,
) => {
  const one = Object.entries(events).map(([name, data]): SchemaObject => ({
    type: 'object',
    properties: {
      event: { type: 'string', enum: [name] },
      data: {
        type: 'string',
        description: 'JSON.',
        contentMediaType: 'application/json',
        contentSchema: openApiSchema(data, 'output'),
      } as SchemaObject,
      ...(withId ? { id: { type: 'string', pattern: '^[0-9]+$', description: 'The room version.' } } : {}),
    },
    required: ['event', 'data', ...(withId ? ['id'] : [])],
    additionalProperties: false,
  }));
  return ApiResponse({
    status: 200,
    description,
    content: {
      'text/event-stream': { schema: one.length === 1 ? (one[0] as SchemaObject) : { oneOf: one } },
    },
  });
};

/** The gateway's OpenAPI document: its routes as the controllers declare them, and the named bodies. */
export function apiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Oasis 198 API')
      .setDescription('The public HTTP API of Oasis 198 (SPEC §7), served by the gateway.')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...responseComponents() },
  };
  return document;
}
