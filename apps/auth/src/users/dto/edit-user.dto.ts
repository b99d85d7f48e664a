import { AppError, USER_MESSAGES } from '@oasis198/contracts';
import {
  validateConfirmedPassword,
  validateEmail,
  validatePassword,
  validateUsername,
} from '@oasis198/game-rules';
import { asObject, assertNoFieldErrors } from './fields';

export type UserEdit =
  | { field: 'name'; name: string }
  | { field: 'email'; email: string }
  | { field: 'password'; password: string };

const FIELDS = ['name', 'email', 'password'] as const;

/**
 * PATCH /api/users/edit: exactly one of name, email or password (SPEC §7), each validated by its
 * SPEC §5 rule. The web app's password form also confirms the password; a `confirmedPassword`
 * sent along must match.
 */
export function parseEditUser(payload: unknown): UserEdit {
  const body = asObject(payload);
  const present = FIELDS.filter((field) => body[field] !== undefined);
  const [field] = present;
  if (present.length !== 1 || !field) throw new AppError('VALIDATION', USER_MESSAGES.oneEditField);
  if (body['confirmedPassword'] !== undefined && field !== 'password') {
    throw new AppError('VALIDATION', USER_MESSAGES.oneEditField);
  }
  switch (field) {
    case 'name': {
      assertNoFieldErrors({ name: validateUsername(body['name']) ?? undefined });
      return { field, name: body['name'] as string };
    }
    case 'email': {
      assertNoFieldErrors({ email: validateEmail(body['email']) ?? undefined });
      return { field, email: body['email'] as string };
    }
    case 'password': {
      const password = body['password'];
      const confirmed = body['confirmedPassword'];
      assertNoFieldErrors({
        password: validatePassword(password) ?? undefined,
        confirmedPassword:
          confirmed === undefined ? undefined : (validateConfirmedPassword(password, confirmed) ?? undefined),
      });
      return { field, password: password as string };
    }
  }
}
