import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';

/**
 * A notice waiting to go out (the mail outbox). It is written before the change it tells of and
 * removed once the SMTP server has taken it; `due` is when a sweep may send it.
 */
@Schema({ collection: 'mails', versionKey: false, timestamps: true })
export class Mail {
  @Prop({ type: String, default: () => new Types.ObjectId().toHexString() })
  _id!: string;

  @Prop({ type: String, required: true })
  to!: string;

  @Prop({ type: String, required: true })
  subject!: string;

  @Prop({ type: String, required: true })
  text!: string;

  @Prop({ type: Date, required: true, index: true })
  due!: Date;

  @Prop({ type: Number, default: 0 })
  attempts!: number;
}

export const MailSchema = SchemaFactory.createForClass(Mail);
export type MailRecord = Mail;
