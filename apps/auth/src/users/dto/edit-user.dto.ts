import { editUserBodySchema, parseWith } from '@oasis198/contracts';

export type UserEdit =
  | { field: 'name'; name: string }
  | { field: 'email'; email: string }
  | { field: 'password'; password: string };

/**
 * PATCH /api/users/edit: exactly one of name, email or password (SPEC §7), each validated by its
 * SPEC §5 rule (the contracts schema). The web app's password form also confirms the password; a
 * `confirmedPassword` sent along must match.
 */
export function parseEditUser(payload: unknown): UserEdit {
  const body = parseWith(editUserBodySchema, payload);
  if ('name' in body) return { field: 'name', name: body.name };
  if ('email' in body) return { field: 'email', email: body.email };
  return { field: 'password', password: body.password };
}
