import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  type ArenaPrizeRequest,
  type ArenaPrizeResponse,
  type OpenArenaRoomRequest,
  type OpenArenaRoomResponse,
  eventOfArena,
  type Person,
  Requests,
} from '@oasis198/contracts';
import { CONFIG, LOGGER, type Logger, Metrics, natsEndpoint, RpcClient } from '@oasis198/service-kit';
import pLimit from 'p-limit';
import { Counter, Histogram } from 'prom-client';
import type { TournamentsConfig } from '../config';
import { type ArenaDoc, ArenaRepository, type PairingDoc } from './arena.repository';
import { ArenaService } from './arena.service';
import { pairFree, pairingWait } from './pairing';
import { type ArenaWindow, currentOrNextArena, isRunning, previousArena } from './schedule';
import { prizesFor } from './standings';

const LEASE = 'arena-runner';

/** A new arena room's id: 24 hex characters, as rooms' ids are. */
const newRoomId = (): string => createHash('sha256').update(randomUUID()).digest('hex').slice(0, 24);

/**
 * The arenas' clock: one replica at a time (under a lease in MongoDB) pairs free players, opens
 * their rooms through the rooms service, and settles ended arenas. Each step is written before
 * the next, so a replica that takes over finishes what a stopped one began.
 */
@Injectable()
export class ArenaRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly owner = randomUUID();
  private readonly rpc: RpcClient;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopping = false;
  private readonly pairingLatency: Histogram;
  private readonly ticks: Counter<'outcome'>;
  private readonly openings: pLimit.Limit;

  constructor(
    private readonly repository: ArenaRepository,
    private readonly arenas: ArenaService,
    @Inject(CONFIG) private readonly config: TournamentsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.rpc = new RpcClient(natsEndpoint(config), 'tournaments', config.RPC_TIMEOUT_MS, logger);
    this.openings = pLimit(config.ARENA_OPENINGS_AT_ONCE);
    this.pairingLatency = new Histogram({
      name: 'oasis_arena_pairing_seconds',
      help: 'From a player free in a running arena (its start, or their game over) to their arena room opened; one per player.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers: [metrics.registry],
    });
    this.ticks = new Counter({
      name: 'oasis_arena_ticks_total',
      help: 'Arena rounds of this replica: ok (it held the lease), standby (another one did), failed.',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.rpc.connect();
    const loop = () => {
      if (this.stopping) return;
      this.ticking = this.tick()
        .then((led) => this.ticks.inc({ outcome: led ? 'ok' : 'standby' }))
        .catch((error: unknown) => {
          this.ticks.inc({ outcome: 'failed' });
          this.logger.warn({ err: error }, 'arena tick failed');
        })
        .finally(() => {
          if (!this.stopping) this.timer = setTimeout(loop, this.config.ARENA_TICK_MS);
        });
    };
    loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.repository.releaseLease(LEASE, this.owner).catch(() => undefined);
    await this.rpc.close();
  }

  /** One round: under the lease, retry unfinished openings, pair each running arena, settle ended ones; false without the lease. */
  async tick(nowMs = Date.now()): Promise<boolean> {
    if (!(await this.repository.holdLease(LEASE, this.owner, this.config.ARENA_LEASE_MS, nowMs)))
      return false;
    await this.resumeOpenings(nowMs);
    for (const schedule of this.arenas.schedules) {
      const arena = currentOrNextArena(schedule, nowMs);
      if (isRunning(arena, nowMs)) await this.pair(arena, nowMs);
      const before = previousArena(schedule, nowMs);
      await this.repository.ensureArena({ _id: before.arenaId, ...before }).catch(() => undefined);
    }
    const ended = await this.repository.unfinishedArenas(nowMs);
    for (const arena of ended) await this.settle(arena, nowMs);
    return true;
  }

  /** Pairs the arena's free players; the pairs' rooms open side by side (their players differ). */
  private async pair(arena: ArenaWindow, nowMs: number): Promise<void> {
    const free = await this.repository.freePlayers(arena.arenaId, nowMs);
    if (free.length < 2) return;
    const byId = new Map(free.map((e) => [e.playerId, e]));
    const person = (id: string): Person => ({ id, name: byId.get(id)?.name ?? id });
    // Settled, all of them, before the round ends: the next round must not see a pair half claimed.
    const opened = await Promise.allSettled(
      pairFree(free).map(([a, b]) =>
        this.openings(async () => {
          if (Date.now() >= arena.endsAt) return;
          const freeSince = [a, b].map((id) => byId.get(id)?.freeSince ?? nowMs);
          await this.open(arena, [person(a), person(b)], freeSince);
        }),
      ),
    );
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Writes the pairing, seats both players in it, then asks rooms to open it; true once opened. */
  private async open(arena: ArenaWindow, players: [Person, Person], freeSince: number[]): Promise<boolean> {
    const arenaId = arena.arenaId;
    const roomId = newRoomId();
    await this.repository.addPairing({
      _id: roomId,
      arenaId,
      players,
      state: 'opening',
      at: Date.now(),
    });
    const claimed: string[] = [];
    for (const player of players) {
      if (await this.repository.claim(arenaId, player.id, roomId)) claimed.push(player.id);
    }
    if (claimed.length < 2) {
      for (const id of claimed) await this.repository.release(arenaId, id, roomId, Date.now());
      await this.repository.setPairing(roomId, 'failed');
      return false;
    }
    if (!(await this.askRooms({ _id: roomId, arenaId, players, state: 'opening', at: Date.now() })))
      return false;
    // Each player's own wait: the one freed first waited longer than the pair's latest.
    const openedAt = Date.now();
    for (const since of freeSince) {
      const wait = pairingWait(since, arena.startsAt, openedAt);
      if (wait !== null) this.pairingLatency.observe(wait);
    }
    return true;
  }

  /** Asks rooms to open the pairing's room; true once opened, false (both freed) when a player is busy. */
  private async askRooms(pairing: PairingDoc): Promise<boolean> {
    const request: OpenArenaRoomRequest = {
      roomId: pairing._id,
      arenaId: pairing.arenaId,
      players: pairing.players as [Person, Person],
    };
    const answer = await this.rpc.request<OpenArenaRoomResponse>(Requests.rooms.openArena, request);
    if (answer.opened) {
      await this.repository.setPairing(pairing._id, 'playing');
      // A room opened is news, whether a new pairing or one a stopped replica left half done: the
      // event pages (and their players) learn of it from the notice (folded to one a second).
      this.arenas.changed(
        eventOfArena(pairing.arenaId),
        pairing.players.map((p) => p.id),
      );
      this.logger.info({ arenaId: pairing.arenaId, roomId: pairing._id }, 'arena room opened');
      return true;
    }
    // A player in another room (a quick battle, another arena): both wait, the busy one longer.
    const now = Date.now();
    for (const player of pairing.players) {
      const busy = answer.busy.includes(player.id);
      await this.repository.release(
        pairing.arenaId,
        player.id,
        pairing._id,
        busy ? now + this.config.ARENA_BUSY_RETRY_MS : now,
      );
    }
    await this.repository.setPairing(pairing._id, 'failed');
    return false;
  }

  /** Openings a stopped replica left half done: asked again (rooms opens each room once). */
  private async resumeOpenings(nowMs: number): Promise<void> {
    const stale = await this.repository.openingSince(nowMs - 2 * this.config.RPC_TIMEOUT_MS);
    for (const pairing of stale) {
      const seated = await this.repository.seatedIn(pairing);
      if (seated === 2) {
        await this.askRooms(pairing).catch((error: unknown) =>
          this.logger.warn({ err: error, roomId: pairing._id }, 'opening an arena room failed; retrying'),
        );
      } else {
        for (const p of pairing.players)
          await this.repository.release(pairing.arenaId, p.id, pairing._id, nowMs);
        await this.repository.setPairing(pairing._id, 'failed');
      }
    }
  }

  /**
   * An ended arena: once its games are over (or ARENA_SETTLE_MAX_MS on), its final standings are
   * written once, each prize is paid through rewards (which pays a place once), and then it is done.
   */
  private async settle(arena: ArenaDoc, nowMs: number): Promise<void> {
    if (!arena.final) {
      const open = await this.repository.openPairings(arena._id);
      if (open > 0 && nowMs < arena.endsAt + this.config.ARENA_SETTLE_MAX_MS) return;
      const final = await this.arenas.finalRanking(arena._id);
      await this.repository.setFinal(arena._id, final);
    }
    const settled = await this.repository.arena(arena._id);
    if (!settled?.final) return;
    for (const prize of prizesFor(settled.final)) {
      if ((settled.paidPlaces ?? []).includes(prize.place)) continue;
      const request: ArenaPrizeRequest = {
        arenaId: arena._id,
        place: prize.place,
        playerId: prize.playerId,
        playerName: prize.name,
      };
      const answer = await this.rpc.request<ArenaPrizeResponse>(Requests.rewards.arenaPrize, request);
      await this.repository.markPaid(arena._id, prize.place);
      this.logger.info({ ...request, outcome: answer.outcome }, 'arena prize paid');
    }
    await this.repository.markFinished(arena._id, nowMs);
    this.arenas.changed(arena.eventId);
  }
}
