import {
  GAME_TYPES,
  PASSCODE_MAX_LENGTH,
  TURN_DURATIONS,
  type GameType,
  type TurnDuration,
} from './constants';

/** SPEC §5 messages, word for word. */
export const MESSAGES = {
  username:
    'Please enter a username between 4 and 16 characters. Use only letters and numbers. Symbols are not allowed.',
  email: 'Please enter a valid email address.',
  password:
    'The password should be between 6 and 16 characters long. Numbers and letters should be used only. Symbols are not allowed.',
  confirmedPassword: 'The passwords do not match.',
  createPasscode: 'Please, select only numbers or letters, 1 - 4 digits',
  wrongPasscode: 'Oops, try again!',
  duration: 'Please choose a turn duration of 14, 32, 60 or 300 seconds.',
  gameType: 'Please choose a game type: quick-battle or tournament.',
} as const;

export const PASSCODE_LABEL = 'Choose a Passcode ( Only numbers, 1 - 4 digits )';

/** A validation result: null when the value is valid, otherwise SPEC's message. */
export type FieldError = string | null;

// Exported for the API's schemas (libs/contracts), which state the same rules to clients.
export const USERNAME_PATTERN = /^[A-Za-z0-9]{4,16}$/;
export const PASSWORD_PATTERN = /^[A-Za-z0-9]{6,16}$/;
// {email}: one @, no spaces, a dot in the domain, letters/digits/._%+- in the local part.
export const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
export const EMAIL_MIN_LENGTH = 6;
export const EMAIL_MAX_LENGTH = 32;
export const PASSCODE_PATTERN = /^\d{1,4}$/;

export function validateUsername(value: unknown): FieldError {
  return typeof value === 'string' && USERNAME_PATTERN.test(value) ? null : MESSAGES.username;
}

export function validateEmail(value: unknown): FieldError {
  return typeof value === 'string' &&
    value.length >= EMAIL_MIN_LENGTH &&
    value.length <= EMAIL_MAX_LENGTH &&
    EMAIL_PATTERN.test(value)
    ? null
    : MESSAGES.email;
}

export function validatePassword(value: unknown): FieldError {
  return typeof value === 'string' && PASSWORD_PATTERN.test(value) ? null : MESSAGES.password;
}

export function validateConfirmedPassword(password: unknown, confirmed: unknown): FieldError {
  return typeof confirmed === 'string' && confirmed === password ? null : MESSAGES.confirmedPassword;
}

/** Passcode on create: optional (empty means open); otherwise 1 to 4 digits. */
export function validateCreatePasscode(value: unknown): FieldError {
  if (value === undefined || value === '') return null;
  return typeof value === 'string' && PASSCODE_PATTERN.test(value) ? null : MESSAGES.createPasscode;
}

/** Passcode entered to join: at most 4 characters, equal to the room's passcode. */
export function checkJoinPasscode(entered: unknown, roomPasscode: string): FieldError {
  if (roomPasscode === '') return null;
  return typeof entered === 'string' && entered.length <= PASSCODE_MAX_LENGTH && entered === roomPasscode
    ? null
    : MESSAGES.wrongPasscode;
}

export function isTurnDuration(value: unknown): value is TurnDuration {
  return (TURN_DURATIONS as readonly unknown[]).includes(value);
}

export function validateDuration(value: unknown): FieldError {
  return isTurnDuration(value) ? null : MESSAGES.duration;
}

export function isGameType(value: unknown): value is GameType {
  return (GAME_TYPES as readonly unknown[]).includes(value);
}

export function validateGameType(value: unknown): FieldError {
  return isGameType(value) ? null : MESSAGES.gameType;
}

export interface RegistrationInput {
  name: unknown;
  email: unknown;
  password: unknown;
  confirmedPassword: unknown;
}

/** Every failing field of a registration form with its message; empty when valid. */
export function validateRegistration(
  input: RegistrationInput,
): Partial<Record<keyof RegistrationInput, string>> {
  const errors: Partial<Record<keyof RegistrationInput, string>> = {};
  const checks: [keyof RegistrationInput, FieldError][] = [
    ['name', validateUsername(input.name)],
    ['email', validateEmail(input.email)],
    ['password', validatePassword(input.password)],
    ['confirmedPassword', validateConfirmedPassword(input.password, input.confirmedPassword)],
  ];
  for (const [field, error] of checks) if (error) errors[field] = error;
  return errors;
}

/** Every failing field of a sign-in form with its message; empty when valid. */
export function validateLogin(input: {
  email: unknown;
  password: unknown;
}): Partial<Record<'email' | 'password', string>> {
  const errors: Partial<Record<'email' | 'password', string>> = {};
  const email = validateEmail(input.email);
  const password = validatePassword(input.password);
  if (email) errors.email = email;
  if (password) errors.password = password;
  return errors;
}
