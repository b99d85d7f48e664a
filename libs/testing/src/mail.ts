import { startLocalInfra } from './local';
import { waitFor } from './node-only/net';

/** One mail as Mailpit lists it. */
export interface InboxMessage {
  ID: string;
  Subject: string;
  To: Array<{ Address: string }>;
  Created: string;
}

/** A Mailpit for tests (.tools/bin, free ports, throwaway data), and what it received. */
export interface TestMail {
  /** Where services send: SMTP_URL. */
  smtpUrl: string;
  inboxUrl: string;
  /** The mails to `to` (any case), newest first. */
  messagesTo(to: string): Promise<InboxMessage[]>;
  /** A mail's plain text. */
  text(id: string): Promise<string>;
  /** Waits until `to` has received `count` mails, and resolves them (newest first). */
  waitForMails(to: string, count: number, timeoutMs?: number): Promise<InboxMessage[]>;
  stop(): Promise<void>;
}

/**
 * Starts Mailpit as `npm start` runs it (SMTP_URL and MAIL_INBOX_URL given: uses that one). Its
 * API: GET /api/v1/search?query=to:<address>, GET /api/v1/message/<id>.
 */
export async function startTestMail(): Promise<TestMail> {
  const given = process.env['SMTP_URL'] && process.env['MAIL_INBOX_URL'];
  const local = given ? undefined : await startLocalInfra({ nats: false, mongo: false, mail: true });
  const smtpUrl = given ? (process.env['SMTP_URL'] ?? '') : (local?.smtpUrl ?? '');
  const inboxUrl = given ? (process.env['MAIL_INBOX_URL'] ?? '') : (local?.inboxUrl ?? '');
  const api = async <T>(urlPath: string): Promise<T> => {
    const response = await fetch(`${inboxUrl}/api/v1/${urlPath}`);
    if (!response.ok) throw new Error(`Mailpit ${urlPath}: ${response.status}`);
    return (await response.json()) as T;
  };
  const messagesTo = async (to: string) => {
    const query = encodeURIComponent(`to:"${to}"`);
    const { messages } = await api<{ messages: InboxMessage[] }>(`search?query=${query}&limit=200`);
    return messages.filter((m) => m.To.some((r) => r.Address.toLowerCase() === to.toLowerCase()));
  };
  return {
    smtpUrl,
    inboxUrl,
    messagesTo,
    text: async (id) => (await api<{ Text: string }>(`message/${id}`)).Text,
    waitForMails: async (to, count, timeoutMs = 10_000) => {
      let found: InboxMessage[] = [];
      await waitFor(
        async () => {
          found = await messagesTo(to);
          return found.length >= count;
        },
        { timeoutMs, what: `${count} mails to ${to}` },
      );
      return found;
    },
    stop: async () => {
      await local?.stop();
    },
  };
}
