import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CONFIG } from '@oasis198/service-kit';
import { createTransport, type Transporter } from 'nodemailer';
import type { AuthConfig } from '../config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Hands mail to the SMTP server of SMTP_URL (nodemailer, a pooled connection). */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly transport: Transporter;

  constructor(@Inject(CONFIG) private readonly config: Pick<AuthConfig, 'SMTP_URL' | 'MAIL_FROM'>) {
    // Short timeouts: a request that sends waits for the server at most this long.
    this.transport = createTransport({
      url: config.SMTP_URL,
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 10_000,
    });
  }

  /** Resolves once the server has accepted the mail. */
  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.config.MAIL_FROM, ...message });
  }

  onModuleDestroy(): void {
    this.transport.close();
  }
}
