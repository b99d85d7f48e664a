import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { MailModule } from '../mail/mail.module';
import { PasswordHasher } from '../passwords/password-hasher';
import { PasswordPolicy } from '../passwords/password-policy';
import { PasswordReset, PasswordResetSchema } from '../resets/password-reset.schema';
import { PasswordResetsService } from '../resets/password-resets.service';
import { TokensModule } from '../tokens/tokens.module';
import { SessionsService } from './sessions.service';
import { UserEventsLifecycle, userEventsProvider } from './user-events';
import { User, UserSchema } from './user.schema';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: User.name, schema: UserSchema },
      { name: PasswordReset.name, schema: PasswordResetSchema },
    ]),
    TokensModule,
    MailModule,
  ],
  controllers: [UsersController],
  providers: [
    UsersRepository,
    UsersService,
    SessionsService,
    PasswordResetsService,
    PasswordHasher,
    PasswordPolicy,
    userEventsProvider,
    UserEventsLifecycle,
  ],
})
export class UsersModule {}
