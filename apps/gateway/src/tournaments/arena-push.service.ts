import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type ArenaChanged,
  type ArenaPush,
  ARENA_PUSH_EVENT,
  ARENA_PUSH_INTERVAL_MS,
  Broadcasts,
  type EventArenaResponse,
  isObject,
  Requests,
} from '@oasis198/contracts';
import { JetStreamService, RpcClient } from '@oasis198/service-kit';

interface Listener {
  /** The player the page is of, told when their own entry changed. */
  player?: string;
  write(frame: string): void;
}

const frameOf = (push: ArenaPush): string => `event: ${ARENA_PUSH_EVENT}\ndata: ${JSON.stringify(push)}\n\n`;

/**
 * Tells the event pages open on this replica that their arena changed (a join, a leave, a score,
 * its end), from the tournaments' core broadcast. The standings go out at most once per event and
 * ARENA_PUSH_INTERVAL_MS: the first change at once, the rest of the interval folded into one frame
 * at its end, carrying the event as anyone sees it, read once here for all its watchers. A player
 * whose own entry changed (seated in a room, freed) is told at once, in a `mine` frame without the
 * event, ahead of any read: a seated player's names the new room, and the page goes there; any
 * other makes the page refetch its entry.
 */
@Injectable()
export class ArenaPushService implements OnModuleInit, OnModuleDestroy {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Each event's interval after a frame of its standings; `folded` once a change waits for its end. */
  private readonly cooldowns = new Map<string, { timer: NodeJS.Timeout; folded: boolean }>();
  /** Each event's frame being read and sent: the next one waits for it, so frames go out in order. */
  private readonly telling = new Map<string, Promise<void>>();

  constructor(
    private readonly jetstream: JetStreamService,
    private readonly rpc: RpcClient,
  ) {}

  onModuleInit(): void {
    this.jetstream.subscribe(Broadcasts.arenaChanged, (data) => {
      const { eventId, players, seats } = (data ?? {}) as Partial<ArenaChanged>;
      if (typeof eventId !== 'string') return;
      this.changed(
        eventId,
        Array.isArray(players) ? players.filter((p) => typeof p === 'string') : [],
        isObject(seats) ? seats : {},
      );
    });
  }

  onModuleDestroy(): void {
    for (const { timer } of this.cooldowns.values()) clearTimeout(timer);
  }

  watch(eventId: string, player: string | undefined, write: (frame: string) => void): () => void {
    const listener: Listener = { player, write };
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

  changed(
    eventId: string,
    players: readonly string[] = [],
    seats: Readonly<Record<string, unknown>> = {},
  ): void {
    // A `mine` frame carries no standings, so it need not wait behind a read of them: at an
    // arena's start every player's new room would otherwise wait for the first read.
    if (players.length > 0) this.tellMine(eventId, new Set(players), seats);
    const cooldown = this.cooldowns.get(eventId);
    if (cooldown) {
      cooldown.folded = true;
      return;
    }
    this.inOrder(eventId, () => this.tell(eventId));
    const timer = setTimeout(() => {
      const ended = this.cooldowns.get(eventId);
      this.cooldowns.delete(eventId);
      if (ended?.folded) this.changed(eventId);
    }, ARENA_PUSH_INTERVAL_MS);
    timer.unref();
    this.cooldowns.set(eventId, { timer, folded: false });
  }

  /** Sends an event's frames in order: one waits for the read of the one before it. */
  private inOrder(eventId: string, send: () => Promise<void>): void {
    const told = (this.telling.get(eventId) ?? Promise.resolve()).then(send);
    this.telling.set(eventId, told);
    void told.finally(() => {
      if (this.telling.get(eventId) === told) this.telling.delete(eventId);
    });
  }

  /** A seated player's frame names the room, so the page goes there without asking for `/me`. */
  private tellMine(
    eventId: string,
    players: ReadonlySet<string>,
    seats: Readonly<Record<string, unknown>>,
  ): void {
    const mine = frameOf({ mine: true });
    for (const listener of this.listeners.get(eventId) ?? []) {
      if (!listener.player || !players.has(listener.player)) continue;
      const roomId = Object.hasOwn(seats, listener.player) ? seats[listener.player] : undefined;
      listener.write(typeof roomId === 'string' ? frameOf({ mine: true, roomId }) : mine);
    }
  }

  private async tell(eventId: string): Promise<void> {
    if (!this.listeners.has(eventId)) return;
    // Unread (tournaments away or slow), the frame says only "refetch", as a page did before.
    const event = await this.rpc
      .request<EventArenaResponse>(Requests.tournaments.event, { eventId })
      .catch(() => undefined);
    const frame = frameOf({ event });
    for (const listener of this.listeners.get(eventId) ?? []) listener.write(frame);
  }
}
