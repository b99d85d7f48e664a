import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { MailOutbox } from './mail-outbox';
import { Mail, MailSchema } from './mail.schema';
import { Mailer } from './mailer';

/** Mail over SMTP, and the outbox of the notices. */
@Module({
  imports: [MongooseModule.forFeature([{ name: Mail.name, schema: MailSchema }])],
  providers: [Mailer, MailOutbox],
  exports: [Mailer, MailOutbox],
})
export class MailModule {}
