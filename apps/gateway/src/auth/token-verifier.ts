import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Broadcasts, Requests, type TokenClaims, type TokensRevoked } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';
import { CONFIG } from '@oasis198/service-kit';
import type { GatewayConfig } from '../config';
import { RpcClient } from '@oasis198/service-kit';

interface Entry {
  claims: TokenClaims;
  until: number;
}

const MAX_ENTRIES = 50_000;

/**
 * Verifies bearer tokens with the auth service (the only holder of the signing key) and keeps
 * good answers for a short while. Auth broadcasts every revocation (logout, password change,
 * account deletion); each gateway replica evicts the matching entries at once, and remembers
 * recent revocations so an answer that was already on its way is not cached.
 */
@Injectable()
export class TokenVerifier implements OnModuleInit {
  private readonly cache = new Map<string, Entry>();
  private readonly revokedJti = new Map<string, number>();
  private readonly revokedUser = new Map<string, { at: number; exceptJti?: string }>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly jetstream: JetStreamService,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    this.jetstream.subscribe(Broadcasts.tokensRevoked, (data) => this.revoked(data as TokensRevoked));
  }

  async verify(token: string): Promise<TokenClaims> {
    const now = Date.now();
    const hit = this.cache.get(token);
    if (hit && hit.until > now) return hit.claims;
    if (hit) this.cache.delete(token);
    const asked = now;
    const claims = await this.rpc.request<TokenClaims>(Requests.auth.verify, { token });
    if (this.config.TOKEN_CACHE_MS > 0 && !this.revokedSince(claims, asked)) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(token, { claims, until: Math.min(now + this.config.TOKEN_CACHE_MS, claims.exp * 1000) });
    }
    return claims;
  }

  /**
   * Forgets cached verifications that a revocation made through this replica ends, at once: the
   * auth service's broadcast travels on another connection than its reply and may come later.
   */
  evict(message: TokensRevoked): void {
    this.revoked(message);
  }

  private revokedSince(claims: TokenClaims, asked: number): boolean {
    if ((this.revokedJti.get(claims.jti) ?? 0) >= asked) return true;
    const user = this.revokedUser.get(claims.userId);
    return !!user && user.at >= asked && user.exceptJti !== claims.jti;
  }

  private revoked(message: TokensRevoked): void {
    const now = Date.now();
    this.forgetOld(now);
    if (message.jti) this.revokedJti.set(message.jti, now);
    if (message.userId) this.revokedUser.set(message.userId, { at: now, exceptJti: message.exceptJti });
    for (const [token, entry] of this.cache) {
      const { jti, userId } = entry.claims;
      if (jti === message.jti || (userId === message.userId && jti !== message.exceptJti))
        this.cache.delete(token);
    }
  }

  private forgetOld(now: number): void {
    const horizon = now - Math.max(this.config.TOKEN_CACHE_MS, this.config.RPC_TIMEOUT_MS) * 2;
    for (const [jti, at] of this.revokedJti) if (at < horizon) this.revokedJti.delete(jti);
    for (const [user, info] of this.revokedUser) if (info.at < horizon) this.revokedUser.delete(user);
  }
}
