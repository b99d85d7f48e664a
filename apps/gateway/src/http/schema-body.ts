import { applyDecorators, Body, type PipeTransform, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiOkResponse,
  ApiPayloadTooLargeResponse,
  ApiQuery,
  type SchemaObject,
} from '@nestjs/swagger';
import { MAX_BODY_BYTES, parseWith } from '@oasis198/contracts';
import { z } from 'zod';
import { ErrorBodyDto } from './error-body.dto';

/**
 * Request input is validated with the zod schemas of libs/contracts, and the OpenAPI document
 * shows those same schemas (z.toJSONSchema), so what the document allows is what the gateway
 * accepts. One pipe: it parses with the schema, or answers 400 with the one error envelope.
 */
export class SchemaPipe implements PipeTransform {
  constructor(private readonly schema: z.ZodType) {}

  /** No body at all reads as an empty one, so each missing field answers its own message. */
  transform(value: unknown): unknown {
    return parseWith(this.schema, value ?? {});
  }
}

/** A schema as the OpenAPI 3.0 document states it: what a client may send. */
export function openApiSchema(schema: z.ZodType): SchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' });
  return json as SchemaObject;
}

/** The JSON body, parsed with a contracts schema (400 with its messages) and documented by it. */
export function ValidBody(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    Body(new SchemaPipe(schema))(target, key, index);
    if (key === undefined) return;
    const method = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    applyDecorators(
      ApiBody({ schema: openApiSchema(schema) }),
      ApiBadRequestResponse({
        type: ErrorBodyDto,
        description: 'A field breaks its rule (its message), or the body is not JSON.',
      }),
      ApiPayloadTooLargeResponse({
        type: ErrorBodyDto,
        description: `A body over ${MAX_BODY_BYTES / 1024} KB.`,
      }),
    )(target, key, method);
  };
}

/** The query string, parsed with a contracts schema of an object (400 with its messages) and documented by it. */
export function ValidQuery(schema: z.ZodObject): ParameterDecorator {
  return (target, key, index) => {
    Query(new SchemaPipe(schema))(target, key, index);
    if (key === undefined) return;
    const method = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    const json = openApiSchema(schema);
    const required = new Set(json.required ?? []);
    applyDecorators(
      ...Object.entries(json.properties ?? {}).map(([name, property]) =>
        ApiQuery({
          name,
          required: required.has(name),
          schema: property as SchemaObject,
          description: (property as SchemaObject).description,
        }),
      ),
      ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A parameter is not valid, or unknown.' }),
    )(target, key, method);
  };
}

/**
 * The 200 of a Server-Sent Events stream. In OpenAPI 3.0 the media type's schema describes one
 * event: its `event` name, its `data` (JSON text) and, where the stream has one, its `id` (the
 * room version).
 */
export const ApiEventStream = (description: string, events: readonly string[], withId = false) =>
  ApiOkResponse({
    description,
    content: {
      'text/event-stream': {
        schema: {
          type: 'object',
          properties: {
            event: { type: 'string', enum: [...events] },
            data: { type: 'string', description: 'JSON.', contentMediaType: 'application/json' },
            ...(withId
              ? { id: { type: 'string', pattern: '^[0-9]+$', description: 'The room version.' } }
              : {}),
          },
          required: ['event', 'data', ...(withId ? ['id'] : [])],
          additionalProperties: false,
        } as SchemaObject,
      },
    },
  });
