import type { z } from 'zod';

/**
 * Expects `body` (an answer or a pushed event's data) to be exactly what its contracts schema, and
 * so the OpenAPI document, states: it parses, and parsing drops nothing (no field the schema does
 * not name) and adds nothing (no default for a field the server left out).
 */
export function expectExactly(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? parsed.data : parsed.error.issues).toEqual(body);
}
