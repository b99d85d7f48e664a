import { Injectable } from '@nestjs/common';
import { type MessageResponse, type TokenClaims, USER_MESSAGES } from '@oasis198/contracts';
import { invalidToken } from '@oasis198/service-kit';
import { RevocationsService } from '../tokens/revocations.service';
import { TokensService } from '../tokens/tokens.service';
import { UsersRepository } from './users.repository';

/** Whether a token is still good (auth.verify), and logout. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly tokens: TokensService,
    private readonly revocations: RevocationsService,
    private readonly users: UsersRepository,
  ) {}

  /**
   * The caller behind a token, or UNAUTHORIZED: a bad signature, another algorithm (or none), an
   * expired token, a logged-out one, a deleted user, or a token issued before the user's last
   * password change (except the token that made that change).
   */
  async verify(token: unknown): Promise<TokenClaims> {
    const claims = await this.tokens.verify(token);
    const [revoked, user] = await Promise.all([
      this.revocations.isRevoked(claims),
      this.users.findActiveById(claims.userId),
    ]);
    if (revoked || !user) throw invalidToken();
    // The current name: a rename keeps the token.
    return {
      userId: user._id,
      name: user.name,
      jti: claims.jti,
      exp: claims.exp,
      issuedAt: claims.issuedAt,
      authTime: claims.authTime,
    };
  }

  /** Revokes the token the caller logged in with; other sessions stay. */
  async logout(caller: TokenClaims): Promise<MessageResponse> {
    // Without the issue time (a caller not from a gateway), now: the entry then outlives the token.
    const issuedAt = caller.issuedAt ?? Date.now();
    await this.revocations.revoke({ userId: caller.userId, jti: caller.jti, issuedAt });
    return { message: USER_MESSAGES.loggedOut };
  }
}
