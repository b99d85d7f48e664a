import { Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import {
  AppError,
  type MessageResponse,
  parseWith,
  type ResetPasswordResult,
  forgotPasswordBodySchema,
  resetPasswordBodySchema,
  USER_MESSAGES,
} from '@oasis198/contracts';
import { CONFIG, LOGGER, type Logger } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import { createHash, randomBytes } from 'node:crypto';
import type { AuthConfig } from '../config';
import { MailOutbox } from '../mail/mail-outbox';
import { Mailer } from '../mail/mailer';
import { PasswordHasher } from '../passwords/password-hasher';
import { PasswordPolicy } from '../passwords/password-policy';
import { RevocationsService } from '../tokens/revocations.service';
import { normalizeEmail } from '../users/dto/fields';
import { UsersRepository } from '../users/users.repository';
import { MailTexts } from './mail-texts';
import { PasswordReset } from './password-reset.schema';

type ResetConfig = Pick<AuthConfig, 'PUBLIC_WEB_URL' | 'RESET_TOKEN_TTL_S'>;

/** A link's record is the SHA-256 of its token: the token itself is only in the mail. */
export const hashResetToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const linkExpired = () => new AppError('GONE', USER_MESSAGES.resetLinkExpired);
/** Retries of a reset mail the SMTP server did not take, before it is given up (the player asks again). */
const SEND_ATTEMPTS = 3;
/** Used and expired links are deleted once this old. */
const KEEP_SPENT_MS = 24 * 60 * 60 * 1000;

/** Forgotten passwords (DECISIONS "Forgotten password"): the mailed link and the reset through it. */
@Injectable()
export class PasswordResetsService {
  constructor(
    @InjectModel(PasswordReset.name) private readonly resets: Model<PasswordReset>,
    private readonly users: UsersRepository,
    private readonly revocations: RevocationsService,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly mailer: Mailer,
    private readonly notices: MailOutbox,
    @Inject(CONFIG) private readonly config: ResetConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Mails a link when the e-mail belongs to an account; answers the same either way, before the
   * mail goes out, so neither the answer nor its time tells whether the account exists. The
   * gateway keeps the limits (per client address, and mails per e-mail).
   */
  async forgot(payload: unknown): Promise<MessageResponse> {
    const { email } = parseWith(forgotPasswordBodySchema, payload);
    const user = await this.users.findActiveByEmailKey(normalizeEmail(email));
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    // Spent links of everyone are cleared here rather than by a TTL index, which FerretDB lacks.
    const cleared = this.resets
      .deleteMany({ expiresAt: { $lt: new Date(now - KEEP_SPENT_MS) } })
      .exec()
      .catch(() => undefined);
    if (user) {
      await this.resets.create({
        _id: hashResetToken(token),
        userId: user._id,
        expiresAt: new Date(now + this.config.RESET_TOKEN_TTL_S * 1000),
      });
      const link = `${this.config.PUBLIC_WEB_URL}/reset-password?token=${token}`;
      const mail = MailTexts.resetLink(user.email, link, Math.round(this.config.RESET_TOKEN_TTL_S / 60));
      void this.sendLink(mail, user._id);
    }
    await cleared;
    return { message: USER_MESSAGES.forgotPassword };
  }

  /**
   * Sets the new password through a link: 400 for a password SPEC §5 or the common list refuses
   * (the link stays good), 410 for an unknown, used or expired link. Success spends every link of
   * the account, voids every token of it, and mails a notice.
   */
  async reset(payload: unknown): Promise<ResetPasswordResult> {
    const input = parseWith(resetPasswordBodySchema, payload);
    this.policy.assertAcceptable(input.password);
    const id = hashResetToken(input.token);
    const live = () => ({ _id: id, usedAt: null, expiresAt: { $gt: new Date() } });
    // An unknown link costs no hash.
    const found = await this.resets.findOne(live()).lean<PasswordReset>().exec();
    if (!found) throw linkExpired();
    const passwordHash = await this.hasher.inTurn(() => this.hasher.hash(input.password), found.userId);
    // Spent here, once: of two resets racing through one link, only one goes on.
    const spent = await this.resets
      .findOneAndUpdate(live(), { $set: { usedAt: new Date() } }, { new: true })
      .lean<PasswordReset>()
      .exec();
    if (!spent) throw linkExpired();
    const user = await this.users.findActiveById(spent.userId);
    if (!user) throw linkExpired();
    let notice: string | undefined;
    let changed: unknown;
    try {
      notice = await this.notices.hold(
        MailTexts.passwordChanged(user.email, `${this.config.PUBLIC_WEB_URL}/forget-password`),
      );
      // Every token is void before the new password is stored, as a password change does.
      await this.revocations.revokeBefore(user._id, Date.now());
      changed = await this.users.update(user._id, { passwordHash });
    } catch (error) {
      // An outage (503) keeps the link good for another try.
      await this.resets.updateOne({ _id: id }, { $set: { usedAt: null } }).exec();
      if (notice) await this.notices.drop(notice);
      throw error;
    }
    if (!changed) {
      if (notice) await this.notices.drop(notice);
      throw linkExpired();
    }
    await this.resets.updateMany({ userId: user._id, usedAt: null }, { $set: { usedAt: new Date() } }).exec();
    void this.notices.release(notice); // the SMTP server's pace is not the answer's
    this.logger.info({ userId: user._id }, 'password reset');
    return { message: USER_MESSAGES.passwordChanged, userId: user._id };
  }

  /** Sends a reset mail (a few tries); a lost one is asked for again (docs/adr/0015). */
  private async sendLink(mail: Parameters<Mailer['send']>[0], userId: string): Promise<void> {
    for (let attempt = 1; attempt <= SEND_ATTEMPTS; attempt++) {
      try {
        await this.mailer.send(mail);
        this.logger.info({ userId }, 'reset link mailed');
        return;
      } catch (error) {
        this.logger.warn({ err: error, userId, attempt }, 'mailing a reset link failed');
        if (attempt < SEND_ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  }
}
