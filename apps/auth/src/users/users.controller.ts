import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AuthUser,
  type EditUserResult,
  type MessageResponse,
  Requests,
  type TokenClaims,
} from '@oasis198/contracts';
import { asObject, parseCaller } from '@oasis198/service-kit';
import { SessionsService } from './sessions.service';
import { UsersService } from './users.service';

/** auth.* over NATS: a payload in, a service call, its answer out. */
@Controller()
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
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
  verify(@Payload() request: unknown): Promise<TokenClaims> {
    return this.sessions.verify(asObject(request)['token']);
  }

  @MessagePattern(Requests.auth.edit)
  edit(@Payload() request: unknown): Promise<EditUserResult> {
    return this.users.edit(parseCaller(request), asObject(request)['body']);
  }

  @MessagePattern(Requests.auth.logout)
  logout(@Payload() request: unknown): Promise<MessageResponse> {
    return this.sessions.logout(parseCaller(request));
  }

  @MessagePattern(Requests.auth.delete)
  delete(@Payload() request: unknown): Promise<MessageResponse> {
    return this.users.delete(parseCaller(request));
  }
}
