/** Shapes of the users calls (SPEC §7) and their NATS requests. */
import {
  EMAIL_MAX_LENGTH,
  EMAIL_MIN_LENGTH,
  EMAIL_PATTERN,
  MESSAGES,
  PASSWORD_PATTERN,
  USERNAME_PATTERN,
  validateConfirmedPassword,
} from '@oasis198/game-rules';
import { z } from 'zod';
import { exactlyOne, isObject, oneOfKeyed, strictBody } from './schema';

export const USER_MESSAGES = {
  registered: 'Account has been successfully created',
  alreadyExists: 'oops, user already exists',
  loggedIn: 'You have successfully logged in',
  loginFailed: 'You have failed to log in, try again',
  badCredentials: 'Invalid e-mail or password.',
  loggedOut: 'You have successfully logged out!',
  deleted: 'You have successfully deleted your account!',
  usernameChanged: 'Username changed successfully',
  emailChanged: 'E-mail changed successfully',
  passwordChanged: 'Password changed successfully',
  editFailed: "Unfortunately, it didn't change",
  commonPassword: 'This password is too common. Please choose a less predictable one.',
  oneEditField: 'Send exactly one of name, email or password.',
  emailTaken: 'This e-mail address is already in use.',
  forgotPassword: 'Please, check your E-mail.',
  resetLinkExpired: 'This link has expired. Ask for a new one.',
} as const;

// SPEC §5's fields. Whatever is wrong with one (missing, not text, too long, a symbol), it answers
// SPEC's message.

export const usernameSchema = z
  .string({ error: MESSAGES.username })
  .regex(USERNAME_PATTERN, MESSAGES.username)
  .meta({ description: '4 to 16 letters or digits (SPEC §5).', example: 'player1' });

export const emailSchema = z
  .string({ error: MESSAGES.email })
  .min(EMAIL_MIN_LENGTH, MESSAGES.email)
  .max(EMAIL_MAX_LENGTH, MESSAGES.email)
  .regex(EMAIL_PATTERN, MESSAGES.email)
  .meta({ description: '6 to 32 characters, an e-mail address (SPEC §5).', example: 'player1@example.com' });

export const passwordSchema = z
  .string({ error: MESSAGES.password })
  .regex(PASSWORD_PATTERN, MESSAGES.password)
  .meta({ description: '6 to 16 letters or digits (SPEC §5).', example: 'tiger2024x' });

/** A password being chosen: the auth service also refuses a common one (DECISIONS), with 400. */
const newPasswordSchema = passwordSchema.meta({
  description:
    '6 to 16 letters or digits (SPEC §5), and not one of the 10,000 most common passwords in any ' +
    `case (DECISIONS): 400 '${USER_MESSAGES.commonPassword}'`,
  example: 'tiger2024x',
});

const confirmedPasswordSchema = z
  .string({ error: MESSAGES.confirmedPassword })
  .regex(PASSWORD_PATTERN, MESSAGES.confirmedPassword)
  .meta({ description: "The same password again; anything else answers 'The passwords do not match.'" });

/** confirmedPassword equals password (SPEC §5), judged even when other fields are wrong too. */
const passwordsMatch = (body: { password?: unknown; confirmedPassword?: unknown }): boolean =>
  body.confirmedPassword === undefined ||
  validateConfirmedPassword(body.password, body.confirmedPassword) === null;
const PASSWORDS_MATCH = {
  path: ['confirmedPassword'],
  message: MESSAGES.confirmedPassword,
  when: () => true,
};

/** POST /api/users/ */
export const registerBodySchema = strictBody({
  name: usernameSchema,
  email: emailSchema,
  password: newPasswordSchema,
  confirmedPassword: confirmedPasswordSchema,
}).refine(passwordsMatch, PASSWORDS_MATCH);
export type RegisterBody = z.infer<typeof registerBodySchema>;

/** POST /api/users/login: the same rules as registration (SPEC §5). */
export const loginBodySchema = strictBody({ email: emailSchema, password: passwordSchema });
export type LoginBody = z.infer<typeof loginBodySchema>;

/**
 * PATCH /api/users/edit: exactly one of name, email or password (SPEC §7); the web app's password
 * form also sends the confirmation, which must match.
 */
export const editUserBodySchema = oneOfKeyed(
  ['name', 'email', 'password'],
  [
    strictBody({ name: usernameSchema }),
    strictBody({ email: emailSchema }),
    strictBody({ password: newPasswordSchema, confirmedPassword: confirmedPasswordSchema.optional() }).refine(
      passwordsMatch,
      PASSWORDS_MATCH,
    ),
  ],
  // A confirmation goes with a new password only.
  (input, present) =>
    exactlyOne(USER_MESSAGES.oneEditField)(input, present) ??
    (isObject(input) && input['confirmedPassword'] !== undefined && present[0] !== 'password'
      ? USER_MESSAGES.oneEditField
      : undefined),
);
export type EditUserBody = z.infer<typeof editUserBodySchema>;

/** POST /api/users/forgot-password: answered 202 alike whether or not the e-mail has an account. */
export const forgotPasswordBodySchema = strictBody({ email: emailSchema });
export type ForgotPasswordBody = z.infer<typeof forgotPasswordBodySchema>;

/**
 * POST /api/users/reset-password: the new password with SPEC §5's rules (400); an unknown, used or
 * expired token answers 410.
 */
export const resetPasswordBodySchema = strictBody({
  token: z
    .string({ error: USER_MESSAGES.resetLinkExpired })
    .max(256, USER_MESSAGES.resetLinkExpired)
    .meta({ description: 'The token of the link `/reset-password?token=…` that the e-mail carries.' }),
  password: newPasswordSchema,
  confirmedPassword: confirmedPasswordSchema,
}).refine(passwordsMatch, PASSWORDS_MATCH);
export type ResetPasswordBody = z.infer<typeof resetPasswordBodySchema>;

/** What auth.reset-password answers over NATS: the gateway applies the user's token record at once. */
export interface ResetPasswordResult {
  message: string;
  userId: string;
}

/** What register and login answer, and what the web app keeps in localStorage under `user`. */
export const authUserSchema = z.object({
  _id: z.string().meta({ example: '6650c0ffee0000000000beef' }),
  name: z.string().meta({ example: 'player1' }),
  token: z.string().meta({ description: 'Bearer token (JWT) for the calls that need one.' }),
});
export type AuthUser = z.infer<typeof authUserSchema>;

const editedUserSchema = authUserSchema.extend({
  email: z.string().meta({ example: 'player1@example.com' }),
});

/** PATCH /api/users/edit answers `{ user }`. The token is the caller's own, still valid. */
export const editUserResponseSchema = z.object({
  user: editedUserSchema.meta({ description: "The token is the caller's own, still valid." }),
});
export type EditUserResponse = z.infer<typeof editUserResponseSchema>;

/** What auth.edit answers over NATS; the gateway adds the caller's own token to make EditUserResponse. */
export const editUserResultSchema = z.object({ user: editedUserSchema.omit({ token: true }) });
export type EditUserResult = z.infer<typeof editUserResultSchema>;

/** The answer of a call that has nothing else to say: logout, and the deletes. */
export const messageResponseSchema = z.object({
  message: z.string().meta({ example: USER_MESSAGES.loggedOut }),
});
export type MessageResponse = z.infer<typeof messageResponseSchema>;

/**
 * The verified identity behind a bearer token, as the gateway forwards it with a request
 * (`{ caller, ... }`); services trust only this, never ids in the body (parseCaller).
 */
export const tokenClaimsSchema = z.object({
  userId: z.string().min(1),
  name: z.string(),
  /** Token id. */
  jti: z.string(),
  /** Expiry, Unix seconds. */
  exp: z.number(),
  /** When the token was issued, Unix ms: revocations by time compare it. */
  issuedAt: z.number().optional(),
  /**
   * When the login behind the token happened, Unix seconds (claim `auth_time`): e-mail and password
   * changes and deletion need a recent one. Missing: not recent.
   */
  authTime: z.number().optional(),
});
export type TokenClaims = z.infer<typeof tokenClaimsSchema>;

export interface VerifyRequest {
  token: string;
}

export interface EditUserRequest {
  caller: TokenClaims;
  body: EditUserBody;
}

export interface LogoutRequest {
  caller: TokenClaims;
}

export interface DeleteUserRequest {
  caller: TokenClaims;
}

/**
 * The keys of the token bucket (KvBuckets.tokens) and their values, JSON. Auth writes them when a
 * token stops being valid before its expiry, or when what a token says changes (the name); every
 * gateway replica holds them in memory. Keys are per user, never per token, so the bucket holds
 * at most two keys per user however often they log in and out. Each value says until when it
 * matters (`until`, Unix ms): no token it concerns outlives that, and the bucket's max age (the
 * token lifetime) removes it.
 */
export const TokenRecords = {
  /** Which of a user's tokens are void (logouts, password change, deletion): UserTokens. */
  user: (userId: string): string => `user.${userId}`,
  /** A user's current name, which tokens issued before the rename do not carry: UserName. */
  name: (userId: string): string => `name.${userId}`,
  /**
   * One logged-out token: TokenRevoked. Auth no longer writes these; gateways honour the ones a
   * bucket still holds (from a release with per-token keys) until they age out.
   */
  token: (jti: string): string => `token.${jti}`,
} as const;

/** A time as the bucket stores it: Unix ms (zod's number is finite). */
const unixMs = z.number();

export const tokenRevokedSchema = z.object({
  /** The token's expiry, Unix ms. */
  until: unixMs,
});
export type TokenRevoked = z.infer<typeof tokenRevokedSchema>;

export const userTokensSchema = z.object({
  /**
   * Tokens issued before this (Unix ms) are void, except `keep`: a password change (`keep` is the
   * token that made it) or a deletion under way (no `keep`).
   */
  revokedBefore: unixMs.optional(),
  keep: z.string().optional(),
  /** The account is deleted: every token of it is void. */
  deleted: z.boolean().optional(),
  /**
   * Tokens carrying a version (claim `tv`) older than this are void, except `keep`: a password
   * change recorded by a release whose tokens carry `tv`; honoured until it ages out.
   */
  tokenVersion: z.int().optional(),
  /** Logged-out tokens that have not expired yet: id and issue time (Unix ms); a bounded list. */
  loggedOut: z.array(z.object({ jti: z.string(), iat: unixMs })).optional(),
  /** Tokens issued at or before this (Unix ms) are void: the logouts that no longer fit in `loggedOut`. */
  loggedOutThrough: unixMs.optional(),
  until: unixMs,
});
export type UserTokens = z.infer<typeof userTokensSchema>;

export const userNameSchema = z.object({
  name: z.string(),
  /** When the rename happened (Unix ms): a later rename wins. */
  at: unixMs,
  until: unixMs,
});
export type UserName = z.infer<typeof userNameSchema>;
