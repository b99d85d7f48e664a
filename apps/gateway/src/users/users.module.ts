import { Module } from '@nestjs/common';
import { AccountEditThrottle, LoginThrottle, RegisterThrottle } from '../http/rate-limit';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [AccountEditThrottle, LoginThrottle, RegisterThrottle],
})
export class UsersModule {}
