import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { EventEnvelope } from '@oasis198/contracts';
import { Types } from 'mongoose';

/**
 * An account. The e-mail is kept as typed and as a lower-case copy with a unique index, so an
 * e-mail is unique whatever its case; the index decides between racing registrations. Events
 * wait in the document's outbox (service-kit outbox.ts) until published.
 */
@Schema({ collection: 'users', versionKey: false, timestamps: true, minimize: false })
export class User {
  @Prop({ type: String, default: () => new Types.ObjectId().toHexString() })
  _id!: string;

  @Prop({ type: String, required: true })
  name!: string;

  @Prop({ type: String, required: true })
  email!: string;

  /** Lower-case e-mail; on deletion replaced by `deleted:<id>` so the e-mail is free at once. */
  @Prop({ type: String, required: true, unique: true })
  emailKey!: string;

  /** argon2id hash; never leaves this service. */
  @Prop({ type: String, required: true })
  passwordHash!: string;

  /** Events as their JSON text (service-kit outbox.ts). */
  @Prop({ type: Object, default: () => ({}) })
  outbox!: Record<string, string | EventEnvelope>;

  @Prop({ type: Date, default: null, index: true })
  outboxAt!: Date | null;

  /** Deleted: refused everywhere, removed once its user.deleted event is out. */
  @Prop({ type: Boolean, default: false })
  tombstone!: boolean;

  createdAt!: Date;
  updatedAt!: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);

/** A user as read from the database (a plain object). */
export type UserRecord = User;
