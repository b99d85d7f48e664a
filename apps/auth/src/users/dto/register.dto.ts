import type { RegisterBody } from '@oasis198/contracts';
import { validateRegistration } from '@oasis198/game-rules';
import { asObject, assertNoFieldErrors } from './fields';

/** SPEC §5 on the server: every invalid field with its message; only the known fields are kept. */
export function parseRegister(payload: unknown): RegisterBody {
  const { name, email, password, confirmedPassword } = asObject(payload);
  assertNoFieldErrors(validateRegistration({ name, email, password, confirmedPassword }));
  return {
    name: name as string,
    email: email as string,
    password: password as string,
    confirmedPassword: confirmedPassword as string,
  };
}
