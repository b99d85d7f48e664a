import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  type ArenaPrizeRequest,
  type ArenaPrizeResponse,
  type OpenArenaRoomsRequest,
  type OpenArenaRoomsResponse,
  eventOfArena,
  type Person,
  Requests,
} from '@oasis198/contracts';
import { CONFIG, LOGGER, type Logger, Metrics, RpcClient, timed } from '@oasis198/service-kit';
import pLimit from 'p-limit';
import { Counter, Histogram } from 'prom-client';
import type { TournamentsConfig } from '../config';
import { type ArenaDoc, ArenaRepository, entrantId, type PairingDoc } from './arena.repository';
import { ArenaService } from './arena.service';
import { FreePlayers } from './free-players';
import { RenewedLease } from './lease';
import { inBatches, planAnswers, planClaims, seatsOf } from './openings';
import { notInHand, pairFree, pairingWait } from './pairing';
import {
  arenaOf,
  type ArenaWindow,
  currentOrNextArena,
  isRunning,
  previousArena,
  untilNextStart,
} from './schedule';
import { prizesFor } from './standings';

const LEASE = 'arena-runner';
/**
 * How often the lease holder looks for openings a stopped replica left, and for seats claimed
 * without a pairing: each look reads a collection whole (every pairing of the arena so far, on
 * FerretDB every one decoded), and what it finds has waited seconds already.
 */
const LEFTOVERS_EVERY_MS = 5_000;
/** How often it looks for ended arenas to settle (a read of the few unfinished arenas). */
const SETTLE_EVERY_MS = 1_000;
/** How long before an arena's start the lease holder reads its players (whole, then by name). */
const WARM_BEFORE_START_MS = 1_000;
/** How often the lease holder reads an arena's free players whole, in case a notice was lost. */
const FREE_WHOLE_EVERY_MS = 5_000;

/** A batch paired before its arena's start, its seats claimed, waiting for the start to open. */
interface EarlyBatch {
  arena: ArenaWindow;
  pairings: PairingDoc[];
  freeSince: (playerId: string) => number;
  tally: Tally;
  seats: string[];
}

/** One batch's pairings counted by outcome (oasis_arena_openings_total), each pairing once. */
class Tally {
  private settled = 0;

  constructor(
    private readonly counter: Counter<'outcome'>,
    private readonly size: number,
  ) {}

  count(outcome: string, n: number): void {
    if (n === 0) return;
    this.settled += n;
    this.counter.inc({ outcome }, n);
  }

  /** The pairings not counted yet failed (they are resumed later). */
  failRest(): void {
    this.count('failed', this.size - this.settled);
  }
}

/** An opening stopped because this replica no longer holds the lease; the new holder resumes it. */
class LeasePassedError extends Error {
  constructor() {
    super('the arena lease passed to another replica, which resumes these openings');
  }
}

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
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopping = false;
  private nudged = false;
  /** Entrants (entrantId) whose opening this replica has in hand: not paired again meanwhile. */
  private readonly seating = new Set<string>();
  /** Rooms this replica is opening: resumeOpenings leaves them to it. */
  private readonly openingRooms = new Set<string>();
  /** Batches paired before their arena's start, by arena: rooms opens them at the start. */
  private readonly early = new Map<string, EarlyBatch[]>();
  /** The openings begun (or queued) by this replica, awaited at shutdown. */
  private readonly openingsInHand = new Set<Promise<void>>();
  /** Rooms opened whose pairings are not marked playing yet, and the write marking them. */
  private readonly toMark: string[] = [];
  private marking?: Promise<void>;
  /** When this replica last looked for leftovers (LEFTOVERS_EVERY_MS), and the look under way. */
  private leftoversAt = 0;
  private sweeping?: Promise<void>;
  /** When this replica last looked for ended arenas to settle (SETTLE_EVERY_MS). */
  private settledAt = 0;
  /** Past arenas whose document this replica has made sure of. */
  private readonly ensured = new Set<string>();
  private readonly pairingLatency: Histogram;
  private readonly ticks: Counter<'outcome'>;
  private readonly rounds: Histogram;
  private readonly openingSteps: Histogram<'step'>;
  private readonly openingOutcomes: Counter<'outcome'>;
  private readonly openings: pLimit.Limit;
  /** Only while it runs does a nudge pair at once. */
  private readonly lease: RenewedLease;
  /** The arenas' free players as the notices and this replica's releases left them. */
  private readonly free: FreePlayers;

  constructor(
    private readonly repository: ArenaRepository,
    private readonly arenas: ArenaService,
    private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly config: TournamentsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.lease = new RenewedLease(config.ARENA_LEASE_MS, (nowMs) =>
      repository.holdLease(LEASE, this.owner, config.ARENA_LEASE_MS, nowMs),
    );
    this.openings = pLimit(config.ARENA_OPENINGS_AT_ONCE);
    this.free = new FreePlayers(repository, FREE_WHOLE_EVERY_MS);
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
    this.rounds = new Histogram({
      name: 'oasis_arena_round_seconds',
      help: 'One arena round of the lease holder, from taking the lease to its last settle.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
    this.openingSteps = new Histogram({
      name: 'oasis_arena_opening_seconds',
      help:
        'The steps of opening a batch of arena rooms (one each per batch): queued (paired, waiting for a free ' +
        'slot), pairing (their one write), claim (all seats, one write and one read), rooms (rooms opening ' +
        'them, one request), playing (marked open, after the slot is free: one write for every batch waiting), ' +
        "total (from its slot to rooms' answer).",
      labelNames: ['step'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
    this.openingOutcomes = new Counter({
      name: 'oasis_arena_openings_total',
      help:
        'Arena room openings by outcome: opened, taken (a player was seated elsewhere first), ' +
        'busy (rooms found a player in another room), ended (the arena ended first), left (a player paired ' +
        'before the start left before it), failed (an error; resumed later).',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  /** Runs one step of an opening and observes its time. */
  private step<T>(step: string, work: () => Promise<T>): Promise<T> {
    return timed(this.openingSteps, { step }, work);
  }

  onApplicationBootstrap(): void {
    // A seated notice is of an opening (this replica's, or a former holder's): nobody freed, and
    // its players are not free, whatever a read that began before their seats said.
    this.arenas.onNotice(({ eventId, players, freed, seated }) => {
      if (seated) this.free.seatedIn(eventId, players);
      else this.free.named(eventId, players);
      if (freed) this.nudge();
    });
    this.loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    while (this.ticking) await this.ticking;
    await this.sweeping;
    // Openings begun finish (or fail and are resumed by the next holder); queued ones do not begin.
    await Promise.allSettled([...this.openingsInHand]);
    // Batches waiting for their arena's start are given up: the next holder pairs their players
    // again, before the start or at it, instead of resuming them once they are old.
    const early = [...this.early.values()].flat();
    await Promise.allSettled(early.map((held) => this.giveUp(held.pairings, Date.now())));
    this.dropEarly();
    await this.marking;
    this.lease.drop();
    await this.repository.releaseLease(LEASE, this.owner).catch(() => undefined);
  }

  /**
   * Runs a round now, then the next ARENA_TICK_MS after it ends, or at an arena's start if sooner
   * (or at once when nudged meanwhile).
   */
  private readonly loop = (): void => {
    if (this.stopping || this.ticking) return;
    clearTimeout(this.timer);
    this.nudged = false;
    this.ticking = this.tick()
      .then((led) => {
        this.ticks.inc({ outcome: led ? 'ok' : 'standby' });
      })
      .catch((error: unknown) => {
        this.ticks.inc({ outcome: 'failed' });
        this.logger.warn({ err: error }, 'arena tick failed');
      })
      .finally(() => {
        this.ticking = undefined;
        if (this.stopping) return;
        if (this.nudged) this.loop();
        // The round after an arena's start begins at the start: its first pairings are everyone's.
        else
          this.timer = setTimeout(
            this.loop,
            Math.min(this.config.ARENA_TICK_MS, untilNextStart(this.arenas.schedules, Date.now())),
          );
      });
  };

  /**
   * A game's scores freed its players, or the queue of openings drained: the lease holder pairs
   * now, not at its next tick.
   */
  private nudge(): void {
    if (!this.lease.heldAt(Date.now()) || this.stopping) return;
    if (this.ticking) this.nudged = true;
    else this.loop();
  }

  /**
   * One round: under the lease, pair each running arena (its openings run on after the round)
   * and each about to start, start a look for openings a stopped replica left (beside the
   * rounds), settle ended arenas; false without the lease.
   */
  async tick(nowMs = Date.now()): Promise<boolean> {
    const held = this.lease.heldAt(nowMs);
    if (!(await this.lease.hold(nowMs))) return false;
    // Taken (again): while another replica held it, this one heard notices it did not keep, and
    // the batches it paired early were resumed by the holder.
    if (!held) {
      this.free.clear();
      this.dropEarly();
    }
    await timed(this.rounds, {}, () => this.round(nowMs));
    return true;
  }

  private async round(nowMs: number): Promise<void> {
    // While batches wait for a slot, the players freed meanwhile wait too, and go into bigger
    // batches once the queue drains (which starts a round at once): no read of the free players
    // is spent on those in hand.
    const queued = this.openings.pendingCount > 0;
    for (const schedule of this.arenas.schedules) {
      const arena = currentOrNextArena(schedule, nowMs);
      const untilStart = arena.startsAt - nowMs;
      if (isRunning(arena, nowMs)) {
        this.openEarly(arena.arenaId);
        if (!queued) await this.pair(arena, nowMs, false);
      } else if (untilStart > 0 && untilStart <= this.config.ARENA_PAIR_BEFORE_START_MS) {
        if (!queued) await this.pair(arena, nowMs, true);
      }
      // Read before the start: the first round then reads only the players who joined since.
      else if (untilStart > 0 && untilStart <= WARM_BEFORE_START_MS)
        await this.free.read(arena.arenaId, nowMs);
      const before = previousArena(schedule, nowMs);
      if (!this.ensured.has(before.arenaId)) {
        if (this.ensured.size >= 64) this.ensured.clear();
        await this.repository.ensureArena({ _id: before.arenaId, ...before }).then(
          () => this.ensured.add(before.arenaId),
          () => undefined,
        );
      }
    }
    // Beside the rounds, not in them: each look reads a collection whole (100-300 ms on a busy
    // machine), and a round that waited for it would hold up the players freed meanwhile, or an
    // arena's start.
    if (!this.sweeping && nowMs - this.leftoversAt >= LEFTOVERS_EVERY_MS) {
      this.leftoversAt = nowMs;
      this.sweeping = this.resumeOpenings(nowMs)
        .then(() => this.freeOrphanSeats(nowMs))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'looking for arena leftovers failed'))
        .finally(() => (this.sweeping = undefined));
    }
    if (nowMs - this.settledAt < SETTLE_EVERY_MS) return;
    this.settledAt = nowMs;
    const ended = await this.repository.unfinishedArenas(nowMs);
    for (const arena of ended) await this.settle(arena, nowMs);
  }

  /**
   * Pairs the arena's free players and starts their rooms' openings, ARENA_OPENING_BATCH pairs to
   * a batch and ARENA_OPENINGS_AT_ONCE batches at a time, without waiting for them: a player freed
   * meanwhile is paired at the next round. Players whose opening this replica has in hand are left
   * out; the claims stay the authority (another replica, or a stale read, at worst costs an
   * opening refused as taken). Paired `early` (before the start), a batch's pairings and seats are
   * written, and rooms is asked at the start (openEarly): everyone is free at the start, and on
   * FerretDB those writes would queue in front of the rooms.
   */
  private async pair(arena: ArenaWindow, nowMs: number, early: boolean): Promise<void> {
    // Those in hand before the read: one settled during it may still read as free.
    const inHand = new Set(this.seating);
    const free = notInHand(await this.free.read(arena.arenaId, nowMs), inHand);
    if (free.length < 2) return;
    const pairs = pairFree(free);
    this.free.taken(arena.arenaId, pairs.flat());
    const byId = new Map(free.map((e) => [e.playerId, e]));
    const person = (id: string): Person => ({ id, name: byId.get(id)?.name ?? id });
    const freeSince = (id: string): number => byId.get(id)?.freeSince ?? nowMs;
    for (const batch of inBatches(pairs, this.config.ARENA_OPENING_BATCH)) {
      const seats = batch.flat().map((id) => entrantId(arena.arenaId, id));
      const queued = this.openingSteps.startTimer({ step: 'queued' });
      this.hold(seats);
      // Seats and rooms of a batch that waits for the start stay in hand until it opens.
      const waiting = new Set<string>();
      const work = this.inSlot(async () => {
        queued();
        if (this.openings.pendingCount === 0) this.nudge();
        // A replica that lost the lease meanwhile leaves its queued pairs to the new holder.
        if (this.stopping || Date.now() >= arena.endsAt || !this.lease.heldAt(Date.now())) return;
        const at = Date.now();
        const pairings = batch.map(([a, b]): PairingDoc => ({
          _id: newRoomId(),
          arenaId: arena.arenaId,
          players: [person(a), person(b)],
          state: 'opening',
          at,
        }));
        const total = this.openingSteps.startTimer({ step: 'total' });
        const tally = new Tally(this.openingOutcomes, pairings.length);
        const ids = pairings.map((p) => p._id);
        for (const id of ids) this.openingRooms.add(id);
        try {
          const claimed = await this.claim(arena, pairings, freeSince, tally);
          // Before the start, the batch waits for it with its seats and rooms in hand.
          if (early && claimed.length > 0 && Date.now() < arena.startsAt) {
            const held: EarlyBatch = {
              arena,
              pairings: claimed,
              freeSince,
              tally,
              seats: claimed.flatMap((p) => p.players.map(({ id }) => entrantId(arena.arenaId, id))),
            };
            for (const key of [...held.seats, ...claimed.map((p) => p._id)]) waiting.add(key);
            this.early.set(arena.arenaId, [...(this.early.get(arena.arenaId) ?? []), held]);
            return;
          }
          if (claimed.length > 0) await this.ask(arena, claimed, freeSince, tally);
          total();
        } catch (error) {
          tally.failRest();
          throw error;
        } finally {
          for (const id of ids) if (!waiting.has(id)) this.openingRooms.delete(id);
        }
      });
      void work.finally(() => this.drop(seats.filter((seat) => !waiting.has(seat))));
    }
  }

  /**
   * At the arena's start, asks rooms for the batches paired before it, in the slots. A player who
   * left the arena since is not seated: their pairing is given up, and the other one waits on.
   */
  private openEarly(arenaId: string): void {
    const batches = this.early.get(arenaId);
    if (!batches) return;
    this.early.delete(arenaId);
    for (const held of batches) {
      const { arena, pairings, freeSince, tally } = held;
      void this.inSlot(async () => {
        try {
          const total = this.openingSteps.startTimer({ step: 'total' });
          const claims = planClaims(
            pairings,
            await this.repository.seatedIn(pairings, { joined: true }),
            freeSince,
          );
          await this.giveUp(claims.taken, Date.now());
          tally.count('left', claims.taken.length);
          if (claims.claimed.length > 0) await this.ask(arena, claims.claimed, freeSince, tally);
          total();
        } catch (error) {
          tally.failRest();
          throw error;
        }
      }).finally(() => this.dropEarlyBatch(held));
    }
  }

  /** Lets go of the batches paired early (their pairings stay, for whoever resumes them). */
  private dropEarly(): void {
    for (const batches of this.early.values()) for (const held of batches) this.dropEarlyBatch(held);
    this.early.clear();
  }

  private dropEarlyBatch(held: EarlyBatch): void {
    this.drop(held.seats);
    for (const p of held.pairings) this.openingRooms.delete(p._id);
  }

  /** Seats in this replica's hand: not paired again until dropped. */
  private hold(seats: readonly string[]): void {
    for (const seat of seats) this.seating.add(seat);
  }

  private drop(seats: readonly string[]): void {
    for (const seat of seats) this.seating.delete(seat);
  }

  /**
   * Runs work in one of the ARENA_OPENINGS_AT_ONCE slots; awaited at shutdown. A failure is left
   * to resumeOpenings.
   */
  private inSlot(work: () => Promise<void>): Promise<void> {
    const kept: Promise<void> = this.openings(work)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'opening arena rooms failed; resuming later'),
      )
      .finally(() => this.openingsInHand.delete(kept));
    this.openingsInHand.add(kept);
    return kept;
  }

  /** Runs a batch's work in a slot, its players' seats in hand until it ends (not paired again meanwhile). */
  private inHand(seats: readonly string[], work: () => Promise<void>): void {
    this.hold(seats);
    void this.inSlot(work).finally(() => this.drop(seats));
  }

  /**
   * Writes a batch's pairings (so a replica that takes over finds them) and, beside them, seats
   * their players, one write each for the whole batch; the pairings with both players seated. A
   * seat whose pairing was never written is freed by freeOrphanSeats.
   */
  private async claim(
    arena: ArenaWindow,
    pairings: readonly PairingDoc[],
    freeSince: (playerId: string) => number,
    tally: Tally,
  ): Promise<PairingDoc[]> {
    const [written, claimed] = await Promise.allSettled([
      this.step('pairing', () => this.repository.addPairings(pairings)),
      this.step('claim', () => this.repository.claimSeats(pairings, Date.now())),
    ]);
    const everySeat = pairings.flatMap((p) => seatsOf(p, freeSince));
    if (written.status === 'rejected') {
      // No pairing to resume from: the seats claimed go back now.
      await this.releaseSeats(everySeat).catch(() => undefined);
      throw written.reason;
    }
    if (claimed.status === 'rejected') throw claimed.reason;
    // Settling counts the open pairings once the arena has ended: one written after that count
    // would be a game the final standings miss, so they are dropped here instead.
    if (Date.now() >= arena.endsAt) {
      await this.releaseSeats(everySeat);
      await this.repository.setPairings(
        pairings.map((p) => p._id),
        'failed',
      );
      tally.count('ended', pairings.length);
      return [];
    }
    // Taken by another pairing: whoever was seated here waits on from when they were free.
    const claims = planClaims(pairings, claimed.value, freeSince);
    if (claims.taken.length > 0) {
      await this.releaseSeats(claims.release);
      await this.repository.setPairings(
        claims.taken.map((p) => p._id),
        'failed',
      );
      tally.count('taken', claims.taken.length);
    }
    return claims.claimed;
  }

  /**
   * Asks rooms to open a batch's claimed pairings and counts what came of it. Rooms opens a room
   * once however often asked: an answer that did not come is asked for once more at once, rather
   * than after the wait for a stopped replica's openings.
   */
  private async ask(
    arena: ArenaWindow,
    pairings: readonly PairingDoc[],
    freeSince: (playerId: string) => number,
    tally: Tally,
  ): Promise<void> {
    const answered = await this.askRooms(pairings).catch((error: unknown) => {
      if (error instanceof LeasePassedError) throw error;
      this.logger.warn({ err: error, arenaId: arena.arenaId }, 'opening arena rooms failed; asking again');
      return this.askRooms(pairings);
    });
    tally.count('opened', answered.opened.length);
    tally.count('busy', answered.busy.length);
    tally.count('ended', answered.ended.length);
    // Each player's own wait: the one freed first waited longer than the pair's latest.
    const openedAt = Date.now();
    for (const pairing of answered.opened) {
      for (const { id } of pairing.players) {
        const wait = pairingWait(freeSince(id), arena.startsAt, openedAt);
        if (wait !== null) this.pairingLatency.observe(wait);
      }
    }
  }

  /** Gives up pairings that will not open: every seat still in their rooms goes back, waiting from `notBefore`. */
  private async giveUp(pairings: readonly PairingDoc[], notBefore: number): Promise<void> {
    if (pairings.length === 0) return;
    await this.releaseSeats(pairings.flatMap((p) => seatsOf(p, () => notBefore)));
    await this.repository.setPairings(
      pairings.map((p) => p._id),
      'failed',
    );
  }

  /**
   * Asks rooms to open the pairings' rooms, in one request, and writes what came of it: the ones
   * opened are playing; the ones with a player busy, or whose arena ended first, are given up and
   * their players freed (a busy one later).
   */
  private async askRooms(
    pairings: readonly PairingDoc[],
  ): Promise<{ opened: PairingDoc[]; busy: PairingDoc[]; ended: PairingDoc[] }> {
    // Only the lease holder asks: one that lost it (stalled, say) leaves its openings to the new
    // holder's resumeOpenings, so that two replicas never ask for one room at once.
    if (!this.lease.heldAt(Date.now())) throw new LeasePassedError();
    const request: OpenArenaRoomsRequest = {
      rooms: pairings.map((p) => ({
        roomId: p._id,
        arenaId: p.arenaId,
        players: p.players as [Person, Person],
        // From the schedule, so a pairing resumed after a restart carries it too.
        endsAt: arenaOf(this.arenas.schedules, p.arenaId)?.endsAt,
      })),
    };
    const answer = await this.step('rooms', () =>
      this.rpc.request<OpenArenaRoomsResponse>(
        Requests.rooms.openArena,
        request,
        this.config.ARENA_ROOMS_TIMEOUT_MS,
      ),
    );
    const plan = planAnswers(pairings, answer.rooms, Date.now(), this.config.ARENA_BUSY_RETRY_MS);
    if (plan.opened.length > 0) {
      // A room opened is news, whether a new pairing or one a stopped replica left half done: the
      // event pages (and their players) learn of it from the notice at once, before the pairings
      // are marked playing; the notice names each player's room, which every replica then names in
      // `/me` (ArenaService.event) and the gateways push to that player's page.
      const opened = new Map<string, Record<string, string>>();
      for (const p of plan.opened) {
        const eventId = eventOfArena(p.arenaId);
        const seats = opened.get(eventId) ?? {};
        opened.set(eventId, seats);
        for (const { id } of p.players) seats[id] = p._id;
      }
      for (const [eventId, seats] of opened) this.arenas.changed(eventId, Object.keys(seats), { seats });
      this.markPlaying(plan.opened.map((p) => p._id));
      this.logger.info({ rooms: plan.opened.length }, 'arena rooms opened');
    }
    // A player in another room (a quick battle, another arena): both wait, the busy one longer.
    // An arena that ended first frees its players for good.
    const refused = [...plan.busy, ...plan.ended];
    if (refused.length > 0) {
      await this.releaseSeats(plan.release);
      await this.repository.setPairings(
        refused.map((p) => p._id),
        'failed',
      );
    }
    return plan;
  }

  /**
   * Marks opened pairings playing, after their batch has given up its slot: the mark only keeps
   * resumeOpenings from asking rooms again (which would answer "opened" once more), so the next
   * batch need not wait for it. Marks that come while one is written go in the next write, one for
   * them all; a failed write leaves them to resumeOpenings.
   */
  private markPlaying(roomIds: readonly string[]): void {
    this.toMark.push(...roomIds);
    this.marking ??= this.writeMarks().finally(() => (this.marking = undefined));
  }

  private async writeMarks(): Promise<void> {
    while (this.toMark.length > 0) {
      const roomIds = this.toMark.splice(0);
      await this.step('playing', () => this.repository.setPairings(roomIds, 'playing')).catch(
        (error: unknown) =>
          this.logger.warn(
            { err: error, rooms: roomIds.length },
            'marking arena rooms playing failed; resuming later',
          ),
      );
    }
  }

  /**
   * Openings left half done (by a stopped replica, or one of this replica's that failed): asked
   * again, in batches, when both players are seated (rooms opens each room once), else given up.
   * They run beside the new openings, not in the round; one in hand here is not taken up twice.
   * Only once an opening is past its two asks of rooms: until then its replica may still be
   * asking (alive, with the lease passed on). Rooms would answer both alike; the wait keeps the
   * work from being done twice.
   */
  private async resumeOpenings(nowMs: number): Promise<void> {
    const asking = 2 * this.config.ARENA_ROOMS_TIMEOUT_MS;
    const stale = (await this.repository.openingSince(nowMs - asking)).filter(
      (p) => !this.openingRooms.has(p._id),
    );
    for (const batch of inBatches(stale, this.config.ARENA_OPENING_BATCH)) {
      const ids = batch.map((p) => p._id);
      for (const id of ids) this.openingRooms.add(id);
      const seats = batch.flatMap((p) => p.players.map((x) => entrantId(p.arenaId, x.id)));
      this.inHand(seats, async () => {
        try {
          if (this.stopping) return;
          const claims = planClaims(batch, await this.repository.seatedIn(batch), () => nowMs);
          if (claims.claimed.length > 0) await this.askRooms(claims.claimed);
          await this.giveUp(claims.taken, nowMs);
        } finally {
          for (const id of ids) this.openingRooms.delete(id);
        }
      });
    }
  }

  /** Frees seats (ArenaRepository.releaseSeats), and has the next round read their players again. */
  private async releaseSeats(seats: Parameters<ArenaRepository['releaseSeats']>[0]): Promise<void> {
    await this.repository.releaseSeats(seats);
    for (const { arenaId, playerId } of seats) this.free.named(eventOfArena(arenaId), [playerId]);
  }

  /**
   * Frees seats claimed long enough ago (twice the wait for rooms) whose pairing was never written:
   * their opening failed, or its replica stopped, between the two writes.
   */
  private async freeOrphanSeats(nowMs: number): Promise<void> {
    const orphans = (
      await this.repository.orphanSeats(nowMs - 2 * this.config.ARENA_ROOMS_TIMEOUT_MS)
    ).filter((seat) => !this.seating.has(entrantId(seat.arenaId, seat.playerId)));
    if (orphans.length === 0) return;
    await this.releaseSeats(orphans.map((seat) => ({ ...seat, notBefore: nowMs })));
    this.logger.warn({ seats: orphans.length }, 'freed arena seats claimed without a pairing');
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
