import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ARENA_PUSH_EVENT, ARENA_PUSH_INTERVAL_MS, Broadcasts } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';

type Listener = () => void;

/** The one frame an event page's stream sends: "the arena changed, refetch it". */
export const ARENA_FRAME = `event: ${ARENA_PUSH_EVENT}\ndata: {}\n\n`;

/**
 * Tells the event pages open on this replica that their arena changed (a join, a leave, a score,
 * its end), from the tournaments' core broadcast. At most one notice per event and
 * ARENA_PUSH_INTERVAL_MS: the first at once, the rest of the interval folded into one at its end.
 */
@Injectable()
export class ArenaPushService implements OnModuleInit, OnModuleDestroy {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly cooldowns = new Map<string, { timer: NodeJS.Timeout; dirty: boolean }>();

  constructor(private readonly jetstream: JetStreamService) {}

  onModuleInit(): void {
    this.jetstream.subscribe(Broadcasts.arenaChanged, (data) => {
      const eventId = (data as { eventId?: unknown } | null)?.eventId;
      if (typeof eventId === 'string') this.changed(eventId);
    });
  }

  onModuleDestroy(): void {
    for (const { timer } of this.cooldowns.values()) clearTimeout(timer);
  }

  watch(eventId: string, listener: Listener): () => void {
    const set = this.listeners.get(eventId) ?? new Set<Listener>();
    this.listeners.set(eventId, set.add(listener));
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(eventId);
    };
  }

  watching(eventId: string): number {
    return this.listeners.get(eventId)?.size ?? 0;
  }

  changed(eventId: string): void {
    const cooldown = this.cooldowns.get(eventId);
    if (cooldown) {
      cooldown.dirty = true;
      return;
    }
    for (const listener of this.listeners.get(eventId) ?? []) listener();
    const timer = setTimeout(() => {
      const ended = this.cooldowns.get(eventId);
      this.cooldowns.delete(eventId);
      if (ended?.dirty) this.changed(eventId);
    }, ARENA_PUSH_INTERVAL_MS);
    timer.unref();
    this.cooldowns.set(eventId, { timer, dirty: false });
  }
}
