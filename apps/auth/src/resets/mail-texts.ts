import type { MailMessage } from '../mail/mailer';

/** The mails of DECISIONS "Forgotten password", as plain text. */
export const MailTexts = {
  resetLink: (to: string, link: string, ttlMinutes: number): MailMessage => ({
    to,
    subject: 'Reset your Oasis 198 password',
    text:
      `Someone asked to reset the password of your Oasis 198 account.\n\n` +
      `To choose a new one, open this link within ${ttlMinutes} minutes:\n${link}\n\n` +
      `The link works once. If it was not you, ignore this mail: your password stays as it is.\n`,
  }),
  passwordChanged: (to: string, forgotLink: string): MailMessage => ({
    to,
    subject: 'Your Oasis 198 password was changed',
    text:
      `The password of your Oasis 198 account was just changed, and every other session was signed out.\n\n` +
      `If it was not you, reset your password now:\n${forgotLink}\n`,
  }),
  emailChanged: (to: string, newEmail: string): MailMessage => ({
    to,
    subject: 'Your Oasis 198 e-mail was changed',
    text:
      `The e-mail of your Oasis 198 account was just changed to ${newEmail}; mail no longer comes here.\n\n` +
      `If it was not you, someone else may hold your account: reply to this mail.\n`,
  }),
};
