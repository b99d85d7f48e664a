import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * A reset link handed out. Only the SHA-256 of its token is stored (the `_id`): the database
 * alone cannot reset a password. Used or expired links stay until a sweep deletes them.
 */
@Schema({ collection: 'password_resets', versionKey: false })
export class PasswordReset {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true, index: true })
  userId!: string;

  @Prop({ type: Date, required: true, index: true })
  expiresAt!: Date;

  @Prop({ type: Date, default: null })
  usedAt!: Date | null;
}

export const PasswordResetSchema = SchemaFactory.createForClass(PasswordReset);
