import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { CONFIG, LOGGER, type Logger } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import type { AuthConfig } from '../config';
import { Mail } from './mail.schema';
import { Mailer, type MailMessage } from './mailer';

/** A held notice waits this long before a sweep may send it: the change it tells of comes first. */
const HOLD_MS = 60_000;
/** A notice being sent is not sent again by a sweep for this long (another replica's claim). */
const CLAIM_MS = 60_000;
/** Retries of a notice the SMTP server refused, at most every RETRY_MAX_MS. */
const RETRY_MAX_MS = 10 * 60_000;

/** The notices of the account changes, to send at least once (docs/adr/0015). */
export interface ChangeNotices {
  /** Stores a notice before its change is made; `release` sends it, `drop` forgets it. */
  hold(message: MailMessage): Promise<string>;
  release(id: string): Promise<void>;
  drop(id: string): Promise<void>;
}

/**
 * Notices go through the `mails` collection: stored first, sent, then deleted. A crash between
 * leaves the record, which the sweep sends; several replicas take turns by claiming a record
 * (moving its `due` ahead) before sending it.
 */
@Injectable()
export class MailOutbox implements ChangeNotices, OnApplicationBootstrap, OnModuleDestroy {
  private sweep?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @InjectModel(Mail.name) private readonly model: Model<Mail>,
    private readonly mailer: Mailer,
    @Inject(CONFIG) private readonly config: Pick<AuthConfig, 'MAIL_SWEEP_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async hold(message: MailMessage, now = Date.now()): Promise<string> {
    const created = await this.model.create({ ...message, due: new Date(now + HOLD_MS) });
    return created._id;
  }

  /** Sends now; on failure the record stays and the sweep retries. Never throws. */
  async release(id: string): Promise<void> {
    await this.sendOne(id, { $exists: true });
  }

  async drop(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
  }

  /** Sends every notice that is due (one sweep). */
  async sendDue(now = Date.now()): Promise<void> {
    const due = await this.model
      .find({ due: { $lte: new Date(now) } }, { _id: 1 })
      .sort({ due: 1 })
      .limit(50)
      .lean<Array<{ _id: string }>>()
      .exec();
    for (const { _id } of due) await this.sendOne(_id, { $lte: new Date(now) });
  }

  private async sendOne(id: string, dueFilter: object): Promise<void> {
    const now = Date.now();
    const claimed = await this.model
      .findOneAndUpdate(
        { _id: id, due: dueFilter },
        { $set: { due: new Date(now + CLAIM_MS) }, $inc: { attempts: 1 } },
        { new: true },
      )
      .lean<Mail>()
      .exec()
      .catch((error: unknown) => {
        this.logger.warn({ err: error, mailId: id }, 'claiming a notice failed; the sweep retries');
        return null;
      });
    if (!claimed) return;
    try {
      await this.mailer.send({ to: claimed.to, subject: claimed.subject, text: claimed.text });
    } catch (error) {
      const backoff = Math.min(RETRY_MAX_MS, 5000 * 2 ** Math.min(claimed.attempts, 10));
      this.logger.warn({ err: error, mailId: id, attempts: claimed.attempts }, 'sending a notice failed');
      await this.model
        .updateOne({ _id: id }, { $set: { due: new Date(now + backoff) } })
        .exec()
        .catch(() => undefined);
      return;
    }
    await this.model
      .deleteOne({ _id: id })
      .exec()
      .catch((error: unknown) => this.logger.warn({ err: error, mailId: id }, 'a sent notice stays stored'));
  }

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => {
      this.sweeping ??= this.sendDue()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'the notice sweep failed'))
        .finally(() => (this.sweeping = undefined));
    }, this.config.MAIL_SWEEP_MS);
    this.sweep.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweep);
    await this.sweeping;
  }
}
