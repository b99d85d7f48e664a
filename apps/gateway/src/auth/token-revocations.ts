import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { KvBuckets } from '@oasis198/contracts';
import { JetStreamService, Lifecycle, LOGGER, type Logger, type VerifiedToken } from '@oasis198/service-kit';
import { JSONCodec, type KV, type KvEntry, type QueuedIterator } from 'nats';
import { RevocationSet } from './revocation-set';

/** Pause before watching again after the watch failed or NATS went away. */
const RETRY_MS = 1000;
const PRUNE_MS = 60_000;
const codec = JSONCodec<unknown>();

/**
 * What a signature cannot say about a token, in this replica with no round trip: the revocations
 * auth writes to the token bucket (logouts, password changes, deletions; renames), which this
 * replica watches and holds in memory (JwtStrategy checks the signature, then asks here). Until
 * the watch has delivered everything the bucket held, and whenever NATS is away, the replica is
 * not ready, and a call that needs a token waits for the catch-up, or answers 503 (fail closed): a
 * token revoked meanwhile must not pass.
 */
@Injectable()
export class TokenRevocations implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly revocations = new RevocationSet();
  private kv?: KV;
  private watcher?: QueuedIterator<KvEntry>;
  private current = false;
  private stopped = false;
  /** False while NATS is away: a watch started then only waits out a request timeout. */
  private connected = true;
  /** The watch ended because NATS came back: start it again without a pause. */
  private restartNow = false;
  /** Ends the watch loop's pause at once (NATS back, or shutdown). */
  private wake?: () => void;
  private pruneTimer?: NodeJS.Timeout;
  /** Calls waiting for the watch to catch up (whenCaughtUp). */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly lifecycle: Lifecycle,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.lifecycle.addReadiness('tokens', () =>
      this.current ? undefined : 'token revocations are not caught up yet',
    );
    void this.followConnection();
    void this.watchForever();
    this.pruneTimer = setInterval(() => this.revocations.prune(), PRUNE_MS);
    this.pruneTimer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.pruneTimer);
    this.watcher?.stop();
    this.wake?.();
  }

  /**
   * Resolves true once the revocations are caught up, or false after `ms`: a reconnect to another
   * NATS node restarts the watch for a moment, and a call made then waits for it instead of failing.
   */
  whenCaughtUp(ms: number): Promise<boolean> {
    if (this.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (caughtUp: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(onCaughtUp);
        resolve(caughtUp);
      };
      const onCaughtUp = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(onCaughtUp);
    });
  }

  /** Whether a well-signed token was ended before its expiry: logged out, user deleted, old version. */
  refuses(claims: VerifiedToken): boolean {
    return this.revocations.refuses(claims);
  }

  /** The user's name since a rename (tokens keep the name they were signed with). */
  nameOf(userId: string): string | undefined {
    return this.revocations.nameOf(userId);
  }

  /**
   * Reads one record of the bucket now: after a logout, password change, deletion or rename made
   * through this replica, so its own next request sees it even if the watch delivers it a moment
   * after auth's answer (they travel on different connections). The watch brings it anyway.
   */
  async refresh(key: string): Promise<void> {
    try {
      const entry = await this.kv?.get(key);
      if (entry) this.apply(entry);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'could not read a token record');
    }
  }

  private apply(entry: KvEntry): void {
    let value: unknown;
    if (entry.operation === 'PUT') {
      try {
        value = codec.decode(entry.value);
      } catch {
        value = null;
      }
    }
    if (!this.revocations.apply(entry.key, entry.revision, value)) {
      this.logger.warn({ key: entry.key, revision: entry.revision }, 'ignored a malformed token record');
    }
  }

  /** Watches the bucket, again and again: after an error, a lost connection or a missing bucket. */
  private async watchForever(): Promise<void> {
    while (!this.stopped) {
      if (!this.connected) await this.pause(); // until NATS is back
      if (this.stopped) break;
      try {
        await this.watchOnce();
      } catch (error) {
        if (!this.stopped) this.logger.warn({ err: error }, 'cannot watch token revocations; retrying');
      }
      this.current = false;
      // A watch ended by a reconnect starts again at once; after a failure, a second's pause.
      if (!this.stopped && this.connected && !this.restartNow) await this.pause(RETRY_MS);
      this.restartNow = false;
    }
  }

  /** Waits until wake() (NATS back, shutdown) or, given, that many milliseconds. */
  private pause(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /**
   * One watch: every key's last value, then each change, until it ends. Ready once everything
   * delivered up to the initial catch-up has been applied.
   */
  private async watchOnce(): Promise<void> {
    const nc = this.jetstream.nc;
    const jsm = await nc.jetstreamManager();
    // Only auth creates the bucket; until it does, this throws and the watch is tried again.
    const info = await jsm.streams.info(`KV_${KvBuckets.tokens}`);
    const kv = await nc
      .jetstream()
      .views.kv(KvBuckets.tokens, { bindOnly: true, allow_direct: info.config.allow_direct });
    this.kv = kv;
    // The catch-up callback may run before kv.watch returns (everything already queued).
    const progress = {
      initialized: false,
      applied: 0,
      watcher: undefined as QueuedIterator<KvEntry> | undefined,
    };
    const catchUp = () => {
      const { initialized, applied, watcher } = progress;
      if (!initialized || !watcher || this.current || applied < watcher.getReceived()) return;
      this.current = true;
      this.logger.info({ records: this.revocations.size }, 'token revocations caught up');
      for (const caughtUp of [...this.waiters]) caughtUp();
    };
    progress.watcher = await kv.watch({
      initializedFn: () => {
        progress.initialized = true;
        catchUp();
      },
    });
    this.watcher = progress.watcher;
    if (this.stopped) progress.watcher.stop();
    catchUp();
    for await (const entry of progress.watcher) {
      this.apply(entry);
      progress.applied += 1;
      catchUp();
    }
  }

  /** NATS away: not ready, and the watch starts over (with every key's last value) once it is back. */
  private async followConnection(): Promise<void> {
    for await (const status of this.jetstream.nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        this.current = false;
        this.connected = status.type === 'reconnect';
        this.restartNow = this.connected;
        this.watcher?.stop();
        if (this.connected) this.wake?.();
      }
    }
  }
}
