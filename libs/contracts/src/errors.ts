import { z } from 'zod';

/**
 * The error envelope every service answers with over NATS, and its HTTP mapping in the gateway.
 * The gateway sends `{ code, message }` as the JSON body with the mapped status.
 */
export const ERROR_CODES = [
  'VALIDATION',
  'UNAUTHORIZED',
  /**
   * A 401 for a change that needs a recent login (e-mail, password, deletion) called with an older
   * token; DECISIONS spells it in lower case, and clients ask for the password and repeat the call.
   */
  'reauth_required',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  /**
   * A join refused because both seats are taken: a 409 like CONFLICT, with a code of its own so
   * clients can tell it from other conflicts (another room of theirs, a race) without reading text.
   */
  'ROOM_FULL',
  /** A password-reset link that is unknown, used or expired (DECISIONS "Forgotten password"). */
  'GONE',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorEnvelopeSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string().meta({ example: 'Please enter a valid email address.' }),
  /** Field name -> message, for validation errors that concern several fields; `reason` for a closed room's 404. */
  details: z.record(z.string(), z.string()).optional().meta({
    description:
      "Field name -> message, when several fields are wrong; for a room closed lately, { reason } (as the room-deleted push's).",
  }),
  /**
   * Seconds until another attempt is accepted (a 429 of a limit kept by a service behind the
   * gateway); the gateway sends it as the Retry-After header.
   */
  retryAfterS: z.number().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
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
};

export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message } = value as { code?: unknown; message?: unknown };
  return typeof message === 'string' && (ERROR_CODES as readonly unknown[]).includes(code);
}

/** An expected failure with a code and a message meant for the user. Services throw it; filters turn it into an envelope. */
export class AppError extends Error {
  // Fields, not parameter properties: the command-line tools, which Node runs as they are, read these types too.
  readonly code: ErrorCode;
  readonly details?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: Record<string, string>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  toEnvelope(): ErrorEnvelope {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }

  static from(envelope: ErrorEnvelope): AppError {
    return new AppError(envelope.code, envelope.message, envelope.details);
  }
}

/**
 * The text of a 429: when to try again, from its Retry-After (seconds under a minute, else whole
 * minutes rounded up), so a 10-minute passcode lock does not say "wait a minute".
 */
export function rateLimitedMessage(retryAfterS: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterS));
  if (seconds < 60)
    return `Too many attempts. Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  const minutes = Math.ceil(seconds / 60);
  return `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Messages shared by several services. */
export const COMMON_MESSAGES = {
  unauthorized: 'Please log in to continue.',
  reauthRequired: 'Please enter your password to continue.',
  invalidToken: 'Your session is not valid. Please log in again.',
  forbiddenOwner: 'You can only change your own data.',
  unavailable: 'The service is not available right now. Please try again shortly.',
  internal: 'Something went wrong on our side. Please try again.',
  tooLarge: 'The request is too large.',
  notFound: 'Not found.',
} as const;
