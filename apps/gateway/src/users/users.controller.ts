import { Body, Controller, Delete, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  type AuthUser,
  authUserSchema,
  type EditUserBody,
  editUserBodySchema,
  type EditUserResponse,
  editUserResponseSchema,
  type EditUserResult,
  type ForgotPasswordBody,
  forgotPasswordBodySchema,
  type LoginBody,
  loginBodySchema,
  type MessageResponse,
  messageResponseSchema,
  type RegisterBody,
  registerBodySchema,
  Requests,
  type ResetPasswordBody,
  resetPasswordBodySchema,
  type ResetPasswordResult,
  type TokenClaims,
  TokenRecords,
  USER_MESSAGES,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { TokenRevocations } from '../auth/token-revocations';
import { ApiAnswer, ApiError } from '../http/openapi';
import {
  AccountEditThrottle,
  ApiRateLimited,
  LimitPerUser,
  LoginThrottle,
  PasswordResetThrottle,
  RegisterThrottle,
} from '../http/rate-limit';
import { DocumentedBody, parseInput, ValidBody } from '../http/schema-body';
import { BearerToken, ClientAddress } from './bearer-token.decorator';

const COMMON_PASSWORD_OR_FIELD =
  'a field breaks SPEC §5 (its message), or the password is one of the 10,000 most common (DECISIONS).';

/** SPEC §7 users calls (and logout), forwarded to the auth service. */
@ApiTags('users')
@ApiError(503, 'The auth service did not answer in time.')
@Controller('api/users')
export class UsersController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly loginThrottle: LoginThrottle,
    private readonly registerThrottle: RegisterThrottle,
    private readonly editThrottle: AccountEditThrottle,
    private readonly revocations: TokenRevocations,
    private readonly resetThrottle: PasswordResetThrottle,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiAnswer(200, authUserSchema)
  @ApiError(
    400,
    "A field breaks SPEC §5 (its message), or no account has this e-mail and password: 'Invalid e-mail or password.' (SPEC §8: a failed login is a 400).",
  )
  @ApiRateLimited(
    'Too many failed or successful logins or password checks for this account, or failed logins or password checks from this address (the right password waits too).',
  )
  @DocumentedBody(loginBodySchema)
  login(@Body() raw: unknown, @ClientAddress() client: string): Promise<AuthUser> {
    // Counted before it is judged (DECISIONS "Fair play"), its shape included: a login that breaks
    // SPEC §5 is a failed login too, on its e-mail's account when it names one.
    const email = (raw as { email?: unknown } | undefined)?.email;
    return this.loginThrottle.attempt(client, typeof email === 'string' ? email : undefined, () => {
      const body: LoginBody = parseInput(loginBodySchema, raw);
      return this.rpc.request<AuthUser>(Requests.auth.login, body);
    });
  }

  @Post()
  @ApiAnswer(201, authUserSchema)
  @ApiError(400, `A ${COMMON_PASSWORD_OR_FIELD}`)
  @ApiError(409, "'oops, user already exists'")
  @ApiRateLimited('Too many registrations or password checks from this address, or for this e-mail.')
  register(
    @ValidBody(registerBodySchema) body: RegisterBody,
    @ClientAddress() client: string,
  ): Promise<AuthUser> {
    return this.registerThrottle.attempt(client, body.email, () =>
      this.rpc.request<AuthUser>(Requests.auth.register, body),
    );
  }

  @Post('forgot-password')
  @HttpCode(202)
  @ApiAnswer(
    202,
    messageResponseSchema,
    `'${USER_MESSAGES.forgotPassword}' for any well-formed e-mail, whether or not it has an account; an account's address receives a link to /reset-password (30 min, once), at most RESET_MAILS_PER_ACCOUNT_PER_HOUR (3) an hour.`,
  )
  @ApiError(400, 'The e-mail breaks SPEC §5 (its message).')
  @ApiRateLimited(
    'More than FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR (10) requests from this address in an hour.',
  )
  async forgotPassword(
    @ValidBody(forgotPasswordBodySchema) body: ForgotPasswordBody,
    @ClientAddress() client: string,
  ): Promise<MessageResponse> {
    await this.resetThrottle.forgot(client, body.email, () =>
      this.rpc.request<MessageResponse>(Requests.auth.forgotPassword, body),
    );
    return { message: USER_MESSAGES.forgotPassword };
  }

  @Post('reset-password')
  @HttpCode(200)
  @ApiAnswer(
    200,
    messageResponseSchema,
    `'${USER_MESSAGES.passwordChanged}': every token of the account is void.`,
  )
  @ApiError(400, `A ${COMMON_PASSWORD_OR_FIELD} The link stays good.`)
  @ApiError(410, `'${USER_MESSAGES.resetLinkExpired}': the token is unknown, used or expired.`)
  @ApiRateLimited('Too many password checks from this address in a minute.')
  async resetPassword(
    @ValidBody(resetPasswordBodySchema) body: ResetPasswordBody,
    @ClientAddress() client: string,
  ): Promise<MessageResponse> {
    await this.resetThrottle.reset(client);
    const { message, userId } = await this.rpc.request<ResetPasswordResult>(
      Requests.auth.resetPassword,
      body,
    );
    // This replica refuses the account's old tokens at once (every replica's watch brings it too).
    await this.revocations.refresh(TokenRecords.user(userId));
    return { message };
  }

  @Patch('edit')
  @UseGuards(AuthGuard)
  @LimitPerUser(
    'accountEdits',
    'Too many account edits by this user in an hour; or a password change beyond the password checks of this user or address, or an e-mail change beyond the registrations of this address.',
  )
  @ApiBearerAuth()
  @ApiAnswer(200, editUserResponseSchema)
  @ApiError(400, `Not exactly one of name, email or password, or ${COMMON_PASSWORD_OR_FIELD}`)
  @ApiError(
    401,
    "No valid token; or, for an e-mail or password change, a login older than REAUTH_WINDOW_S (10 min): code 'reauth_required', nothing changed.",
  )
  @ApiError(409, 'The new e-mail is in use.')
  async edit(
    @ValidBody(editUserBodySchema) body: EditUserBody,
    @Caller() caller: TokenClaims,
    @BearerToken() token: string,
    @ClientAddress() client: string,
  ): Promise<EditUserResponse> {
    if ('password' in body) await this.editThrottle.passwordChange(client, caller.userId);
    if ('email' in body) await this.editThrottle.emailChange(client);
    const { user } = await this.rpc.request<EditUserResult>(Requests.auth.edit, { caller, body });
    // This replica applies the new record at once (every replica's watch brings it too).
    if ('password' in body) await this.revocations.refresh(TokenRecords.user(caller.userId));
    if ('name' in body) await this.revocations.refresh(TokenRecords.name(caller.userId));
    return { user: { ...user, token } };
  }

  @Delete('delete')
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiAnswer(200, messageResponseSchema)
  @ApiError(
    401,
    "No valid token, or a login older than REAUTH_WINDOW_S (10 min): code 'reauth_required', nothing deleted.",
  )
  async delete(@Caller() caller: TokenClaims): Promise<MessageResponse> {
    const answer = await this.rpc.request<MessageResponse>(Requests.auth.delete, { caller });
    await this.revocations.refresh(TokenRecords.user(caller.userId));
    return answer;
  }

  @Post('logout')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @LimitPerUser('logouts', 'Too many logouts by this user in a minute.')
  @ApiBearerAuth()
  @ApiAnswer(200, messageResponseSchema)
  @ApiError(401)
  async logout(@Caller() caller: TokenClaims): Promise<MessageResponse> {
    const answer = await this.rpc.request<MessageResponse>(Requests.auth.logout, { caller });
    await this.revocations.refresh(TokenRecords.user(caller.userId));
    return answer;
  }
}
