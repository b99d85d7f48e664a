/** Shapes of the users calls (SPEC §7) and their NATS requests. */

export interface RegisterBody {
  name: string;
  email: string;
  password: string;
  confirmedPassword: string;
}

export interface LoginBody {
  email: string;
  password: string;
}

/** PATCH /api/users/edit: exactly one of the fields. */
export type EditUserBody = { name: string } | { email: string } | { password: string };

/** What register and login answer, and what the web app keeps in localStorage under `user`. */
export interface AuthUser {
  _id: string;
  name: string;
  token: string;
}

/** PATCH /api/users/edit answers `{ user }`. The token is the caller's own, still valid. */
export interface EditUserResponse {
  user: AuthUser & { email: string };
}

/** What auth.edit answers over NATS; the gateway adds the caller's own token to make EditUserResponse. */
export interface EditUserResult {
  user: Omit<EditUserResponse['user'], 'token'>;
}

export interface MessageResponse {
  message: string;
}

/** The verified identity behind a bearer token. */
export interface TokenClaims {
  userId: string;
  name: string;
  /** Token id. */
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

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
 * gateway replica holds them in memory. Each value says until when it matters (`until`, Unix ms):
 * no token it concerns outlives that, and the bucket's max age (the token lifetime) removes it.
 */
export const TokenRecords = {
  /** One token logged out: TokenRevoked. */
  token: (jti: string): string => `token.${jti}`,
  /** A user's tokens judged by version (password change) or all void (deletion): UserTokens. */
  user: (userId: string): string => `user.${userId}`,
  /** A user's current name, which tokens issued before the rename do not carry: UserName. */
  name: (userId: string): string => `name.${userId}`,
} as const;

export interface TokenRevoked {
  /** The token's expiry, Unix ms. */
  until: number;
}

export interface UserTokens {
  /** Tokens of an older version (claim `tv`) are void, except `keep` (the token that changed the password). */
  tokenVersion: number;
  keep?: string;
  /** The account is deleted: every token of it is void. */
  deleted?: boolean;
  until: number;
}

export interface UserName {
  name: string;
  /** When the rename happened (Unix ms): a later rename wins. */
  at: number;
  until: number;
}

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
} as const;
