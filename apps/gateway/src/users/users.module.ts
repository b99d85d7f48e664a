import { Module } from '@nestjs/common';
import {
  AccountEditThrottle,
  LoginThrottle,
  PasswordResetThrottle,
  RegisterThrottle,
} from '../http/rate-limit';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [AccountEditThrottle, LoginThrottle, PasswordResetThrottle, RegisterThrottle],
})
export class UsersModule {}
