import { type LoginBody, loginBodySchema, parseWith } from '@oasis198/contracts';

/** Sign-in validates e-mail and password by the same rules as registration (SPEC §5). */
export function parseLogin(payload: unknown): LoginBody {
  return parseWith(loginBodySchema, payload);
}
