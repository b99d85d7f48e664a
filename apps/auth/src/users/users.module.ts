import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { PasswordHasher } from '../passwords/password-hasher';
import { PasswordPolicy } from '../passwords/password-policy';
import { TokensModule } from '../tokens/tokens.module';
import { SessionsService } from './sessions.service';
import { UserEventsLifecycle, userEventsProvider } from './user-events';
import { User, UserSchema } from './user.schema';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: User.name, schema: UserSchema }]), TokensModule],
  controllers: [UsersController],
  providers: [
    UsersRepository,
    UsersService,
    SessionsService,
    PasswordHasher,
    PasswordPolicy,
    userEventsProvider,
    UserEventsLifecycle,
  ],
})
export class UsersModule {}
