import { applyDecorators, Body, type PipeTransform, Query } from '@nestjs/common';
import { ApiBody, ApiQuery, type SchemaObject } from '@nestjs/swagger';
import { MAX_BODY_BYTES, parseWith } from '@oasis198/contracts';
import type { z } from 'zod';
import { ApiError, openApiSchema } from './openapi';

/**
 * Request input is validated with the zod schemas of libs/contracts, and the OpenAPI document
 * shows those same schemas (z.toJSONSchema), so what the document allows is what the gateway
 * accepts. One pipe: it parses with the schema, or answers 400 with the one error envelope.
 */
export class SchemaPipe implements PipeTransform {
  constructor(private readonly schema: z.ZodType) {}

  transform(value: unknown): unknown {
    return parseInput(this.schema, value);
  }
}

/**
 * A request's body or query parsed with `schema` (400 with its messages). No body at all reads as
 * an empty one, so each missing field answers its own message.
 */
export const parseInput = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> =>
  parseWith(schema, value ?? {});

/**
 * The route's JSON body as the document states it: the contracts schema, and the 400 and 413 it may
 * answer. For a route that parses the body itself (parseWith); ValidBody does both.
 */
export const DocumentedBody = (schema: z.ZodType) =>
  applyDecorators(
    ApiBody({ schema: openApiSchema(schema) }),
    ApiError(400, 'A field breaks its rule (its message), or the body is not JSON.'),
    ApiError(413, `A body over ${MAX_BODY_BYTES / 1024} KB.`),
  );

/** The JSON body, parsed with a contracts schema (400 with its messages) and documented by it. */
export function ValidBody(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    Body(new SchemaPipe(schema))(target, key, index);
    if (key === undefined) return;
    const method = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
    DocumentedBody(schema)(target, key, method);
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
      ApiError(400, 'A parameter is not valid, or unknown.'),
    )(target, key, method);
  };
}
