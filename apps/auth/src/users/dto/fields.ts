/** E-mails are unique whatever their case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
