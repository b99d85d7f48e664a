import type { LoginBody } from '@oasis198/contracts';
import { validateLogin } from '@oasis198/game-rules';
import { asObject, assertNoFieldErrors } from './fields';

/** Sign-in validates e-mail and password by the same rules as registration (SPEC §5). */
export function parseLogin(payload: unknown): LoginBody {
  const { email, password } = asObject(payload);
  assertNoFieldErrors(validateLogin({ email, password }));
  return { email: email as string, password: password as string };
}
