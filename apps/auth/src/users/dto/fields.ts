import { AppError } from '@oasis198/contracts';

export { asObject } from '@oasis198/service-kit';

/** Throws VALIDATION with the first field's message and every field's message in details. */
export function assertNoFieldErrors(errors: Partial<Record<string, string>>): void {
  const details = Object.fromEntries(
    Object.entries(errors).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const first = Object.values(details)[0];
  if (first) throw new AppError('VALIDATION', first, details);
}

/** E-mails are unique whatever their case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
