import { Body, Controller, Delete, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import {
  type AuthUser,
  type EditUserResponse,
  type EditUserResult,
  type MessageResponse,
  Requests,
  type TokenClaims,
  TokenRecords,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { TokenRevocations } from '../auth/token-revocations';
import { ErrorBodyDto } from '../http/error-body.dto';
import { ApiRateLimited, LoginThrottle, RegisterThrottle } from '../http/rate-limit';
import { BearerToken, ClientAddress } from './bearer-token.decorator';
import { EditUserDto } from './dto/edit-user.dto';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { AuthUserDto, EditUserResponseDto, MessageDto } from './dto/responses.dto';

/** SPEC §7 users calls (and logout), forwarded to the auth service. */
@ApiTags('users')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A field breaks SPEC §5 (its message).' })
@ApiServiceUnavailableResponse({
  type: ErrorBodyDto,
  description: 'The auth service did not answer in time.',
})
@Controller('api/users')
export class UsersController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly loginThrottle: LoginThrottle,
    private readonly registerThrottle: RegisterThrottle,
    private readonly revocations: TokenRevocations,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiOkResponse({ type: AuthUserDto })
  @ApiRateLimited(
    'Too many failed logins for this account or from this address (the right password waits too).',
  )
  login(@Body() body: LoginDto, @ClientAddress() client: string): Promise<AuthUser> {
    return this.loginThrottle.attempt(client, body.email, () =>
      this.rpc.request<AuthUser>(Requests.auth.login, body),
    );
  }

  @Post()
  @ApiCreatedResponse({ type: AuthUserDto })
  @ApiConflictResponse({ type: ErrorBodyDto, description: "'oops, user already exists'" })
  @ApiRateLimited('Too many registrations from this address.')
  register(@Body() body: RegisterDto, @ClientAddress() client: string): Promise<AuthUser> {
    return this.registerThrottle.attempt(client, () =>
      this.rpc.request<AuthUser>(Requests.auth.register, body),
    );
  }

  @Patch('edit')
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiOkResponse({ type: EditUserResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'The new e-mail is in use.' })
  async edit(
    @Body() body: EditUserDto,
    @Caller() caller: TokenClaims,
    @BearerToken() token: string,
  ): Promise<EditUserResponse> {
    const { user } = await this.rpc.request<EditUserResult>(Requests.auth.edit, { caller, body });
    // This replica applies the new record at once (every replica's watch brings it too).
    if (body.password !== undefined) await this.revocations.refresh(TokenRecords.user(caller.userId));
    if (body.name !== undefined) await this.revocations.refresh(TokenRecords.name(caller.userId));
    return { user: { ...user, token } };
  }

  @Delete('delete')
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiOkResponse({ type: MessageDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  async delete(@Caller() caller: TokenClaims): Promise<MessageResponse> {
    const answer = await this.rpc.request<MessageResponse>(Requests.auth.delete, { caller });
    await this.revocations.refresh(TokenRecords.user(caller.userId));
    return answer;
  }

  @Post('logout')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiOkResponse({ type: MessageDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  async logout(@Caller() caller: TokenClaims): Promise<MessageResponse> {
    const answer = await this.rpc.request<MessageResponse>(Requests.auth.logout, { caller });
    await this.revocations.refresh(TokenRecords.token(caller.jti));
    return answer;
  }
}
