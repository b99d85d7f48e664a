import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Broadcasts, LEADERBOARD_PUSH_EVENT, LEADERBOARD_PUSH_INTERVAL_MS } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';

type Listener = () => void;

/** The one frame the leaderboard stream sends: "something changed, refetch what you show". */
export const LEADERBOARD_FRAME = `event: ${LEADERBOARD_PUSH_EVENT}\ndata: {}\n\n`;

/**
 * Tells the leaderboards open on this gateway replica that games were paid. Every replica hears
 * the rewards service's core broadcast (Broadcasts.leaderboardChanged). However many games end,
 * a listener hears at most one notice per LEADERBOARD_PUSH_INTERVAL_MS: the first at once, the
 * rest of that interval folded into one at its end. The notice carries nothing (any paid game
 * can move every rank), so the browser refetches the page and the rank it shows.
 */
@Injectable()
export class LeaderboardPushService implements OnModuleInit, OnModuleDestroy {
  private readonly listeners = new Set<Listener>();
  private cooldown?: NodeJS.Timeout;
  private dirty = false;

  constructor(private readonly jetstream: JetStreamService) {}

  onModuleInit(): void {
    this.jetstream.subscribe(Broadcasts.leaderboardChanged, () => this.changed());
  }

  onModuleDestroy(): void {
    clearTimeout(this.cooldown);
  }

  /** Calls the listener after games were paid; returns the unsubscribe function. */
  watch(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners (open streams), e.g. to see that none is left behind when clients go. */
  watching(): number {
    return this.listeners.size;
  }

  /** A change: notify now, or at the end of the current interval. */
  changed(): void {
    if (this.cooldown) {
      this.dirty = true;
      return;
    }
    this.notify();
    this.cooldown = setTimeout(() => this.endCooldown(), LEADERBOARD_PUSH_INTERVAL_MS);
    this.cooldown.unref();
  }

  private endCooldown(): void {
    this.cooldown = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.changed();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
