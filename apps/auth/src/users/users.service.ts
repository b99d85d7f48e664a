import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  type AuthUser,
  COMMON_MESSAGES,
  type EditUserResult,
  EventIds,
  EventTypes,
  type MessageResponse,
  type TokenClaims,
  USER_MESSAGES,
} from '@oasis198/contracts';
import { CONFIG, LOGGER, type Logger, makeEvent, type OutboxRelay } from '@oasis198/service-kit';
import { Types } from 'mongoose';
import type { AuthConfig } from '../config';
import { type ChangeNotices, MailOutbox } from '../mail/mail-outbox';
import { PasswordHasher } from '../passwords/password-hasher';
import { MailTexts } from '../resets/mail-texts';
import { PasswordPolicy } from '../passwords/password-policy';
import { RevocationsService } from '../tokens/revocations.service';
import { TokensService } from '../tokens/tokens.service';
import { parseEditUser } from './dto/edit-user.dto';
import { normalizeEmail } from './dto/fields';
import { parseLogin } from './dto/login.dto';
import { parseRegister } from './dto/register.dto';
import { USER_EVENTS } from './user-events';
import type { UserRecord } from './user.schema';
import { EmailInUseError, UsersRepository } from './users.repository';

const invalidSession = () => new AppError('UNAUTHORIZED', COMMON_MESSAGES.invalidToken);

/** Accounts: register, login, edit and delete (SPEC §4, §5, §7 and DECISIONS.md). */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: TokensService,
    private readonly revocations: RevocationsService,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    @Inject(USER_EVENTS) private readonly events: Pick<OutboxRelay, 'publishSoon' | 'assertCanPublish'>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MailOutbox) private readonly notices: ChangeNotices,
    @Inject(CONFIG) private readonly config: Pick<AuthConfig, 'PUBLIC_WEB_URL'>,
  ) {}

  /** A new account and a token; 409 when the e-mail is taken, in any case, even under a race. */
  async register(payload: unknown): Promise<AuthUser> {
    const input = parseRegister(payload);
    this.policy.assertAcceptable(input.password);
    const emailKey = normalizeEmail(input.email);
    this.events.assertCanPublish(); // 503 while USERS is full: no account whose event cannot go out
    const passwordHash = await this.hasher.inTurn(async () => {
      // Saves hashing for the common case; the unique index decides races.
      if (await this.users.findActiveByEmailKey(emailKey)) throw alreadyExists();
      return this.hasher.hash(input.password);
    }, emailKey);
    const id = new Types.ObjectId().toHexString();
    const event = makeEvent(EventTypes.userRegistered, EventIds.userRegistered(id), {
      userId: id,
      name: input.name,
    });
    let user: UserRecord;
    try {
      user = await this.users.create(
        { _id: id, name: input.name, email: input.email, emailKey, passwordHash },
        [event],
      );
    } catch (error) {
      if (error instanceof EmailInUseError) throw alreadyExists();
      throw error;
    }
    await this.events.publishSoon(user);
    this.logger.info({ userId: id }, 'user registered');
    const { token } = await this.tokens.sign({ userId: id, name: user.name });
    return { _id: id, name: user.name, token };
  }

  /** A token for the right e-mail and password; otherwise one message that does not say which was wrong. */
  async login(payload: unknown): Promise<AuthUser> {
    const input = parseLogin(payload);
    const emailKey = normalizeEmail(input.email);
    const { user, matches } = await this.hasher.inTurn(async () => {
      const found = await this.users.findActiveByEmailKey(emailKey);
      return {
        user: found,
        matches: found
          ? await this.hasher.verify(found.passwordHash, input.password)
          : await this.hasher.verifyNothing(input.password),
      };
    }, emailKey);
    if (!user || !matches) throw new AppError('VALIDATION', USER_MESSAGES.badCredentials);
    const { token } = await this.tokens.sign({ userId: user._id, name: user.name });
    return { _id: user._id, name: user.name, token };
  }

  /**
   * Changes exactly one of name, e-mail or password. A rename is announced (user.renamed) and
   * written to the token bucket (gateways show the new name for tokens carrying the old one); a
   * password change revokes every other token of the user while the caller's stays valid.
   */
  async edit(caller: TokenClaims, payload: unknown): Promise<EditUserResult> {
    const edit = parseEditUser(payload);
    // Before anything is read or changed: a stolen token learns nothing here either.
    if (edit.field !== 'name') this.tokens.assertRecentLogin(caller);
    let user: UserRecord | null;
    switch (edit.field) {
      case 'name': {
        this.events.assertCanPublish(); // a rename is announced (user.renamed)
        const now = new Date();
        const event = makeEvent(
          EventTypes.userRenamed,
          EventIds.userRenamed(caller.userId, edit.name, now.getTime()),
          { userId: caller.userId, name: edit.name },
          now,
        );
        user = await this.users.update(caller.userId, { name: edit.name }, [event], { now });
        if (user) {
          // The tokens stay valid but carry the old name: gateways show the new one from now on.
          await this.events.publishSoon(user);
          await this.revocations.renamed(caller.userId, edit.name, now.getTime());
        }
        break;
      }
      case 'email': {
        const emailKey = normalizeEmail(edit.email);
        const holder = await this.users.findActiveByEmailKey(emailKey);
        if (holder && holder._id !== caller.userId) throw emailTaken();
        const before = await this.users.findActiveById(caller.userId);
        if (!before) throw invalidSession();
        // The old address hears of the change (DECISIONS): stored before it, sent after it.
        user = await this.withNotice(MailTexts.emailChanged(before.email, edit.email), async () => {
          try {
            return await this.users.update(caller.userId, { email: edit.email, emailKey });
          } catch (error) {
            if (error instanceof EmailInUseError) throw emailTaken();
            throw error;
          }
        });
        break;
      }
      case 'password': {
        this.policy.assertAcceptable(edit.password);
        const passwordHash = await this.hasher.inTurn(() => this.hasher.hash(edit.password), caller.userId);
        // Every other token is void before the new password is stored, so a confirmed change never
        // leaves a thief's token working; the caller's token is kept (DECISIONS).
        const before = await this.users.findActiveById(caller.userId);
        if (!before) throw invalidSession();
        const forgotLink = `${this.config.PUBLIC_WEB_URL}/forget-password`;
        user = await this.withNotice(MailTexts.passwordChanged(before.email, forgotLink), async () => {
          await this.revocations.revokeBefore(caller.userId, Date.now(), caller.jti);
          return this.users.update(caller.userId, { passwordHash });
        });
        break;
      }
    }
    if (!user) throw invalidSession();
    this.logger.info({ userId: user._id, field: edit.field }, 'user edited');
    return { user: { _id: user._id, name: user.name, email: user.email } };
  }

  /**
   * Runs a change with its notice held first: sent once the change is stored, forgotten when it
   * fails. A crash between the two leaves the notice to the outbox's sweep.
   */
  private async withNotice(
    notice: Parameters<ChangeNotices['hold']>[0],
    change: () => Promise<UserRecord | null>,
  ): Promise<UserRecord | null> {
    const id = await this.notices.hold(notice);
    let user: UserRecord | null;
    try {
      user = await change();
    } catch (error) {
      await this.notices.drop(id);
      throw error;
    }
    if (user)
      void this.notices.release(id); // the SMTP server's pace is not the answer's
    else await this.notices.drop(id);
    return user;
  }

  /** Deletes the account: every token stops working at once; user.deleted goes out, then the record. */
  async delete(caller: TokenClaims): Promise<MessageResponse> {
    this.tokens.assertRecentLogin(caller);
    this.events.assertCanPublish(); // user.deleted must go out before the record goes
    const event = makeEvent(EventTypes.userDeleted, EventIds.userDeleted(caller.userId), {
      userId: caller.userId,
    });
    // Every token issued so far is void before the account goes; `deleted` then voids the tokens
    // of logins that raced the deletion too.
    await this.revocations.revokeBefore(caller.userId, Date.now());
    const user = await this.users.tombstone(caller.userId, [event]);
    if (!user) {
      // Gone already, yet a gateway let the token through: the earlier deletion's record may not
      // have been stored (that call answered 503), so store it now.
      await this.revocations.userDeleted(caller.userId);
      throw invalidSession();
    }
    await this.events.publishSoon(user);
    await this.revocations.userDeleted(caller.userId);
    this.logger.info({ userId: caller.userId }, 'user deleted');
    return { message: USER_MESSAGES.deleted };
  }
}

const alreadyExists = () => new AppError('CONFLICT', USER_MESSAGES.alreadyExists);
const emailTaken = () =>
  new AppError('CONFLICT', USER_MESSAGES.emailTaken, { email: USER_MESSAGES.emailTaken });
