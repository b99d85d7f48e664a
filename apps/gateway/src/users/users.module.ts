import { Module } from '@nestjs/common';
import { LoginThrottle, RegisterThrottle } from '../http/rate-limit';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [LoginThrottle, RegisterThrottle],
})
export class UsersModule {}
