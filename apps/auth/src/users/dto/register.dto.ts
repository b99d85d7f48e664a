import { parseWith, type RegisterBody, registerBodySchema } from '@oasis198/contracts';

/** SPEC §5 on the server, by the contracts schema: every invalid field with its message. */
export function parseRegister(payload: unknown): RegisterBody {
  return parseWith(registerBodySchema, payload);
}
