import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { EventEnvelope } from '@oasis198/contracts';
import { isDuplicateKeyError, outboxFields, outboxOf } from '@oasis198/service-kit';
import type { Model } from 'mongoose';
import { User, type UserRecord } from './user.schema';

/** The unique index on the normalized e-mail refused a write. */
export class EmailInUseError extends Error {
  override name = 'EmailInUseError';
}

export interface NewUser {
  _id: string;
  name: string;
  email: string;
  emailKey: string;
  passwordHash: string;
}

/** What may change in an account, besides its outbox. */
export type UserChange = Partial<Pick<User, 'name' | 'email' | 'emailKey' | 'passwordHash'>>;

/**
 * Persistence of accounts. Every change is one atomic single-document update that also stores the
 * events it causes (the in-document outbox); a deleted (tombstoned) account is invisible here.
 */
@Injectable()
export class UsersRepository implements OnModuleInit {
  constructor(@InjectModel(User.name) private readonly model: Model<User>) {}

  /** The unique e-mail index must exist before the first registration, not some time after. */
  async onModuleInit(): Promise<void> {
    await this.model.init();
  }

  async create(user: NewUser, events: readonly EventEnvelope[], now = new Date()): Promise<UserRecord> {
    const outbox = outboxOf(events);
    try {
      const created = await this.model.create({
        ...user,
        outbox,
        outboxAt: events.length ? now : null,
      });
      return created.toObject();
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new EmailInUseError(user.emailKey);
      throw error;
    }
  }

  findActiveById(id: string): Promise<UserRecord | null> {
    return this.model
      .findOne({ _id: id, tombstone: { $ne: true } })
      .lean<UserRecord>()
      .exec();
  }

  findActiveByEmailKey(emailKey: string): Promise<UserRecord | null> {
    return this.model
      .findOne({ emailKey, tombstone: { $ne: true } })
      .lean<UserRecord>()
      .exec();
  }

  /**
   * Applies a change (and its events) to a live account; null when the account does not exist or
   * is being deleted.
   */
  async update(
    id: string,
    change: UserChange,
    events: readonly EventEnvelope[] = [],
    options: { now?: Date } = {},
  ): Promise<UserRecord | null> {
    const set = { ...change, ...(events.length ? outboxFields(events, options.now) : {}) };
    try {
      return await this.model
        .findOneAndUpdate({ _id: id, tombstone: { $ne: true } }, { $set: set }, { new: true })
        .lean<UserRecord>()
        .exec();
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new EmailInUseError(change.emailKey ?? '');
      throw error;
    }
  }

  /**
   * Marks the account deleted with its last event: it can no longer log in or verify a token, its
   * e-mail is free at once, and the outbox relay removes it after publishing user.deleted.
   */
  tombstone(id: string, events: readonly EventEnvelope[], now = new Date()): Promise<UserRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, tombstone: { $ne: true } },
        {
          $set: {
            tombstone: true,
            emailKey: `deleted:${id}`,
            ...outboxFields(events, now),
          },
        },
        { new: true },
      )
      .lean<UserRecord>()
      .exec();
  }
}
