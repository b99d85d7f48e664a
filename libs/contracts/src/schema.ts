import { z } from 'zod';
import { AppError } from './errors';

/**
 * The contracts' schemas are zod schemas: the gateway validates HTTP input with them and publishes
 * them in its OpenAPI document (z.toJSONSchema), the services parse NATS requests with them, and
 * the types are inferred from them. These helpers turn a failed parse into the one error envelope.
 */

/** A body or query field the schema does not know: the same words the API has always answered with. */
export const unknownFieldMessage = (key: string): string => `property ${key} should not exist`;

/** The message of a body that is not a JSON object at all. */
export const BODY_OBJECT_MESSAGE = 'The request body must be a JSON object.';

/**
 * A JSON object with exactly these fields: any other field is refused (never stored or passed on),
 * and a body that is not an object answers `message`.
 */
export function strictBody<Shape extends z.ZodRawShape>(shape: Shape, message = BODY_OBJECT_MESSAGE) {
  return z.strictObject(shape, { error: message });
}

/**
 * A whole number from `min` (query strings are read as numbers, as JavaScript's Number() reads
 * them). Any whole number, however large: a page past the end is an empty page, not an error.
 * Documented as an integer; zod's own int() would stop at 2^53.
 */
export function wholeNumber(message: string, min: number, max?: number) {
  return integerFrom(z.coerce.number({ error: message }), message, min, max);
}

/** The same whole number in a NATS message, where it is already a JSON number (text is refused). */
export function wholeNumberValue(message: string, min: number, max?: number) {
  return integerFrom(z.number({ error: message }), message, min, max);
}

function integerFrom<N extends z.ZodNumber | z.ZodCoercedNumber>(
  base: N,
  message: string,
  min: number,
  max?: number,
) {
  const atLeast = base.refine(Number.isInteger, message).min(min, message);
  return (max === undefined ? atLeast : atLeast.max(max, message)).meta({ type: 'integer' });
}

/** A user, room or game id as the messages and events carry them. */
export const idSchema = z.string().min(1).max(64);

/** A count, a version or a total: a whole number from 0. */
export const countSchema = z.int().min(0);

/** A time in SPEC seconds (since 2022-11-17T00:00:00Z), to the millisecond. */
export const specSecondsSchema = z.number();

/**
 * One of several object shapes told apart by the key each one carries (the room intents, the user
 * edits). A field no shape knows is named first (as every object here does); then `problem` judges
 * the input from which of `keys` it has (e.g. none or two: its message); then it is parsed as the
 * shape it chose. Documented as the choice of those shapes.
 */
export function oneOfKeyed<const Options extends readonly [z.ZodObject, z.ZodObject, ...z.ZodObject[]]>(
  keys: readonly string[],
  options: Options,
  problem: (input: unknown, present: readonly string[]) => string | undefined,
) {
  const known = new Set(options.flatMap((option) => Object.keys(option.shape)));
  return z.preprocess((value, ctx) => {
    const fields = isObject(value) ? Object.keys(value) : [];
    for (const key of fields.filter((field) => !known.has(field))) {
      ctx.addIssue({ code: 'custom', path: [key], message: unknownFieldMessage(key), input: value });
    }
    const message = problem(
      value,
      keys.filter((key) => isObject(value) && value[key] !== undefined),
    );
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: value });
    return value;
  }, z.union(options));
}

/**
 * An object that carries exactly one of its (optional) fields, else `message` (e.g. the seat of a
 * Play Again). The document says so with minProperties and maxProperties.
 */
export function exactlyOneField<Shape extends z.ZodRawShape>(object: z.ZodObject<Shape>, message: string) {
  const keys = Object.keys(object.shape);
  return z
    .preprocess((value, ctx) => {
      const present = isObject(value) ? Object.keys(value).filter((key) => value[key] !== undefined) : [];
      if (present.length !== 1 || !keys.includes(present[0] as string))
        ctx.addIssue({ code: 'custom', message, input: value });
      return value;
    }, object)
    .meta({ minProperties: 1, maxProperties: 1 });
}

/** The usual rule of oneOfKeyed: exactly one of the keys, else `message`. */
export const exactlyOne =
  (message: string) =>
  (_input: unknown, present: readonly string[]): string | undefined =>
    present.length === 1 ? undefined : message;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** Parses `value` with `schema`, or throws VALIDATION with the first message and every field's message. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error.issues, value);
}

/**
 * Parses `value` with `schema`, or throws `refusal()`: for a message whose every problem has one
 * answer, such as an id that names nothing (NOT_FOUND), a request without a verified caller
 * (UNAUTHORIZED) or a malformed event (parseEvent).
 */
export function parseOr<S extends z.ZodType>(
  schema: S,
  value: unknown,
  refusal: () => AppError,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw refusal();
}

/** An event payload that can never be applied: JetStreamService terminates it (VALIDATION). */
export const malformedEvent = (name: string): AppError =>
  new AppError('VALIDATION', `malformed ${name} event`);

/** Parses an event's payload with its schema, or throws malformedEvent(name). */
export const parseEvent = <S extends z.ZodType>(schema: S, data: unknown, name: string): z.output<S> =>
  parseOr(schema, data, () => malformedEvent(name));

/**
 * The envelope of a failed parse: `message` is the first problem, `details` maps each field's path
 * (`move.number`) to its first message. For a choice between shapes (a union, e.g. the four room
 * intents), the shape the input was meant to be is the one whose fields it has: its problems are
 * reported; when it fits none, the union's own message is.
 */
export function validationError(issues: readonly Issue[], value: unknown): AppError {
  const messages = new Map<string, string>();
  collect(issues, [], value, messages);
  const [first] = messages.values();
  const details = Object.fromEntries([...messages].filter(([path]) => path !== ''));
  return new AppError(
    'VALIDATION',
    first ?? 'The request is not valid.',
    Object.keys(details).length ? details : undefined,
  );
}

function collect(issues: readonly Issue[], prefix: Path, value: unknown, into: Map<string, string>): void {
  const add = (path: Path, message: string) => {
    const key = path.map(String).join('.');
    if (!into.has(key)) into.set(key, message);
  };
  // Unknown fields first: a body with a field it must not carry is refused for that, whatever else.
  const unknownFirst = [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  for (const issue of unknownFirst) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...path, key], unknownFieldMessage(key));
    } else if (issue.code === 'invalid_union' && issue.errors.length) {
      const branch = meantBranch(issue.errors, valueAt(value, issue.path));
      if (branch) collect(branch, path, valueAt(value, issue.path), into);
      else add(path, issue.message);
    } else {
      add(path, issue.message);
    }
  }
}

/**
 * The union branch whose shape the input has: none of its top-level fields missing or unknown, and
 * the input not of another type; of those, the one with the fewest missing or unknown fields at
 * any depth, then the fewest problems.
 */
function meantBranch(branches: readonly (readonly Issue[])[], value: unknown): readonly Issue[] | undefined {
  const missing = (issue: Issue) => issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
  const misfit = (issue: Issue) => issue.code === 'unrecognized_keys' || missing(issue);
  const fits = (issues: readonly Issue[]) =>
    !issues.some((issue) => issue.path.length === 0 || (issue.path.length === 1 && missing(issue)));
  const score = (issues: readonly Issue[]) => issues.filter(misfit).length * 1000 + issues.length;
  const candidates = branches.filter(fits);
  if (!candidates.length) return undefined;
  return candidates.reduce((best, next) => (score(next) < score(best) ? next : best));
}

function valueAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}
