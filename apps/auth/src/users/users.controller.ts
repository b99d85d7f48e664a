import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AuthUser,
  type EditUserRequest,
  type EditUserResult,
  type MessageResponse,
  Requests,
  type ResetPasswordResult,
  type TokenClaims,
  type VerifyRequest,
} from '@oasis198/contracts';
import { parseCaller, type Sent } from '@oasis198/service-kit';
import { PasswordResetsService } from '../resets/password-resets.service';
import { SessionsService } from './sessions.service';
import { UsersService } from './users.service';

/** auth.* over NATS: a payload in, a service call, its answer out. */
@Controller()
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly resets: PasswordResetsService,
  ) {}

  @MessagePattern(Requests.auth.register)
  register(@Payload() body: unknown): Promise<AuthUser> {
    return this.users.register(body);
  }

  @MessagePattern(Requests.auth.login)
  login(@Payload() body: unknown): Promise<AuthUser> {
    return this.users.login(body);
  }

  @MessagePattern(Requests.auth.verify)
  verify(@Payload() request: Sent<VerifyRequest>): Promise<TokenClaims> {
    return this.sessions.verify(request?.token);
  }

  @MessagePattern(Requests.auth.edit)
  edit(@Payload() request: Sent<EditUserRequest>): Promise<EditUserResult> {
    return this.users.edit(parseCaller(request), request?.body);
  }

  @MessagePattern(Requests.auth.logout)
  logout(@Payload() request: unknown): Promise<MessageResponse> {
    return this.sessions.logout(parseCaller(request));
  }

  @MessagePattern(Requests.auth.delete)
  delete(@Payload() request: unknown): Promise<MessageResponse> {
    return this.users.delete(parseCaller(request));
  }

  @MessagePattern(Requests.auth.forgotPassword)
  forgotPassword(@Payload() body: unknown): Promise<MessageResponse> {
    return this.resets.forgot(body);
  }

  @MessagePattern(Requests.auth.resetPassword)
  resetPassword(@Payload() body: unknown): Promise<ResetPasswordResult> {
    return this.resets.reset(body);
  }
}
