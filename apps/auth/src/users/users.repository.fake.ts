import type { EventEnvelope } from '@oasis198/contracts';
import { encodeOutboxEvent, outboxKey, outboxOf } from '@oasis198/service-kit';
import type { UserRecord } from './user.schema';
import { EmailInUseError, type NewUser, type UserChange, type UsersRepository } from './users.repository';

type Repository = Pick<UsersRepository, keyof UsersRepository>;

/**
 * UsersRepository in memory, with the same guarantees the real one gets from MongoDB (a unique
 * normalized e-mail, tombstones invisible), for unit tests of the services above it.
 */
export class InMemoryUsersRepository implements Repository {
  readonly users = new Map<string, UserRecord>();
  /** Lets a test simulate a registration racing in between the pre-check and the insert. */
  beforeWrite?: () => void;

  async onModuleInit(): Promise<void> {
    // nothing to prepare
  }

  async create(user: NewUser, events: readonly EventEnvelope[], now = new Date()): Promise<UserRecord> {
    this.beforeWrite?.();
    this.assertEmailFree(user.emailKey, user._id);
    const record: UserRecord = {
      ...user,
      outbox: outboxOf(events),
      outboxAt: events.length ? now : null,
      tombstone: false,
      createdAt: now,
      updatedAt: now,
    };
    this.users.set(user._id, record);
    return structuredClone(record);
  }

  async findActiveById(id: string): Promise<UserRecord | null> {
    const user = this.users.get(id);
    return user && !user.tombstone ? structuredClone(user) : null;
  }

  async findActiveByEmailKey(emailKey: string): Promise<UserRecord | null> {
    const user = [...this.users.values()].find((u) => u.emailKey === emailKey && !u.tombstone);
    return user ? structuredClone(user) : null;
  }

  async update(
    id: string,
    change: UserChange,
    events: readonly EventEnvelope[] = [],
    options: { now?: Date } = {},
  ): Promise<UserRecord | null> {
    this.beforeWrite?.();
    const user = this.users.get(id);
    if (!user || user.tombstone) return null;
    if (change.emailKey) this.assertEmailFree(change.emailKey, id);
    Object.assign(user, change);
    for (const event of events) user.outbox[outboxKey(event.id)] = encodeOutboxEvent(event);
    if (events.length) user.outboxAt = options.now ?? new Date();
    return structuredClone(user);
  }

  async tombstone(
    id: string,
    events: readonly EventEnvelope[],
    now = new Date(),
  ): Promise<UserRecord | null> {
    const user = this.users.get(id);
    if (!user || user.tombstone) return null;
    Object.assign(user, { tombstone: true, emailKey: `deleted:${id}`, outboxAt: now });
    for (const event of events) user.outbox[outboxKey(event.id)] = encodeOutboxEvent(event);
    return structuredClone(user);
  }

  private assertEmailFree(emailKey: string, ownerId: string): void {
    for (const user of this.users.values()) {
      if (user.emailKey === emailKey && user._id !== ownerId) throw new EmailInUseError(emailKey);
    }
  }
}
