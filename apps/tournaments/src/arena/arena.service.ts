import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  AppError,
  ARENA_EVENTS,
  ARENA_MESSAGES,
  type ArenaEventId,
  arenaChangedSubject,
  Broadcasts,
  arenaEventName,
  eventOfArena,
  type ArenaChanged,
  type ArenaRoomResponse,
  type ArenaStanding,
  type ArenaView,
  type EventArenaResponse,
  type GameFinished,
  type GetRoomRequest,
  isArenaEvent,
  isObject,
  Requests,
  type TokenClaims,
} from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger, Metrics, RpcClient } from '@oasis198/service-kit';
import { Histogram } from 'prom-client';
import type { TournamentsConfig } from '../config';
import { ArenaRepository, type EntrantDoc } from './arena.repository';
import {
  type ArenaWindow,
  currentOrNextArena,
  type EventSchedule,
  isRunning,
  previousArena,
} from './schedule';
import { leftArena, outcomeFor, rankScores, tallyOf } from './standings';

const RANKING_KEPT_MS = 10_000;
/** Arena rooms whose opening a replica remembers, from the notices: the ones now played and more. */
const OPEN_ROOMS_KEPT = 20_000;

/**
 * An arena's entrants as a replica read them (all of them at `at`), and their ranking. The
 * notices name the players whose entries changed since: those are read again by id before the
 * next ranking; `whole` once a notice named nobody (all are read again).
 */
interface KeptRanking {
  at: number;
  changed: Set<string>;
  whole: boolean;
  entrants: Map<string, EntrantDoc>;
  ranking: Promise<ArenaStanding[]>;
}

/** The enabled events' schedules from the environment (an EVERY_MS of 0 turns one off). */
export function schedulesFrom(config: TournamentsConfig): EventSchedule[] {
  const all: Record<ArenaEventId, EventSchedule> = {
    'event-2': {
      eventId: 'event-2',
      everyMs: config.EVENT_2_EVERY_MS,
      durationMs: config.EVENT_2_DURATION_MS,
    },
    'event-6': {
      eventId: 'event-6',
      everyMs: config.EVENT_6_EVERY_MS,
      durationMs: config.EVENT_6_DURATION_MS,
    },
    'event-9': {
      eventId: 'event-9',
      everyMs: config.EVENT_9_EVERY_MS,
      durationMs: config.EVENT_9_DURATION_MS,
    },
  };
  return ARENA_EVENTS.map((id) => all[id]).filter((s) => s.everyMs > 0 && s.durationMs > 0);
}

/** Joins, leaves, views and the scoring of arena games. */
/** A notice as a replica heard it: whose entries changed, and whether it freed or seated them. */
export interface HeardNotice {
  eventId: string;
  players: string[];
  freed: boolean;
  seated: boolean;
}

@Injectable()
export class ArenaService implements OnModuleInit {
  readonly schedules: EventSchedule[];
  /** Each arena's entrants as this replica read them, and their ranking (KeptRanking). */
  private readonly rankings = new Map<string, KeptRanking>();
  private readonly scoringLag: Histogram;
  private readonly noticeListeners: Array<(notice: HeardNotice) => void> = [];
  /** Rooms a notice said were opened: `/me` names them without asking rooms (insertion order). */
  private readonly openRooms = new Set<string>();

  constructor(
    private readonly repository: ArenaRepository,
    private readonly jetstream: JetStreamService,
    private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly config: TournamentsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.schedules = schedulesFrom(config);
    this.scoringLag = new Histogram({
      name: 'oasis_arena_scored_seconds',
      help:
        "From an arena game's end (its finishedAt) to its players scored and free (each game of a batch " +
        'that scored): the part of their wait before pairing can see them.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  /**
   * Every replica hears the notices of every replica's changes (the ones the gateways push to the
   * event pages): a ranking read before one is read again, and players freed by a score are
   * paired at once by the lease holder, whichever replica scored them.
   */
  onModuleInit(): void {
    this.jetstream.subscribe(Broadcasts.arenaChanged, (data) => {
      const { eventId, players, freed, seated, seats } = (data ?? {}) as Partial<ArenaChanged>;
      if (typeof eventId !== 'string') return;
      const named = Array.isArray(players) ? players.filter((p) => typeof p === 'string') : [];
      if (seated === true && isObject(seats)) this.opened(Object.values(seats));
      if (seated !== true) this.standingsChanged(eventId, named);
      const notice = { eventId, players: named, freed: freed === true, seated: seated === true };
      for (const listener of this.noticeListeners) listener(notice);
    });
  }

  private standingsChanged(eventId: string, players: readonly unknown[]): void {
    for (const [arenaId, kept] of this.rankings) {
      if (eventOfArena(arenaId) !== eventId) continue;
      if (players.length === 0) kept.whole = true;
      for (const player of players) if (typeof player === 'string') kept.changed.add(player);
    }
  }

  /** Calls `listener` with every notice heard, from any replica (a game's scores freed players, say). */
  onNotice(listener: (notice: HeardNotice) => void): void {
    this.noticeListeners.push(listener);
  }

  scheduleOf(eventId: unknown): EventSchedule | null {
    if (!isArenaEvent(eventId)) throw new AppError('NOT_FOUND', ARENA_MESSAGES.unknownEvent);
    return this.schedules.find((s) => s.eventId === eventId) ?? null;
  }

  async event(
    eventId: unknown,
    caller: TokenClaims | undefined,
    nowMs = Date.now(),
  ): Promise<EventArenaResponse> {
    const schedule = this.scheduleOf(eventId);
    const id = eventId as string;
    const none = {
      eventId: id,
      name: arenaEventName(id),
      arena: null,
      previous: null,
      joined: false,
      roomId: null,
    };
    if (!schedule) return none;
    const current = currentOrNextArena(schedule, nowMs);
    const ended = isRunning(current, nowMs) ? null : previousArena(schedule, nowMs);
    const entrant = (arenaId: string) =>
      caller?.userId ? this.repository.entrant(arenaId, caller.userId) : null;
    const [ranking, mine, mineBefore] = await Promise.all([
      this.ranking(current.arenaId),
      entrant(current.arenaId),
      ended ? entrant(ended.arenaId) : null,
    ]);
    const arena = this.view(current, nowMs, ranking);
    const before = ended ? await this.finalView(ended) : null;
    // A seat is named once rooms has opened it: one being opened may still be refused (a busy
    // player), and its page would find no room there. Between arenas, it is the ended one's: a
    // game paired before its end is played, and counts, when it ends.
    const seat = mine?.roomId ?? mineBefore?.roomId;
    const roomId = seat && (this.openRooms.has(seat) || (await this.isOpen(seat))) ? seat : null;
    return { ...none, arena, previous: before, joined: !!mine?.joined, roomId };
  }

  /** Remembers rooms a notice said were opened (the oldest forgotten past OPEN_ROOMS_KEPT). */
  private opened(rooms: readonly unknown[]): void {
    for (const room of rooms) if (typeof room === 'string') this.openRooms.add(room);
    for (const room of this.openRooms) {
      if (this.openRooms.size <= OPEN_ROOMS_KEPT) break;
      this.openRooms.delete(room);
    }
  }

  /**
   * Whether the seat's room is open, for one no notice named. Its players are told as soon as
   * rooms has opened it, and the pairing is marked playing after that: until then, rooms says
   * whether the room is there (a read of its log). A failure of that read fails the request,
   * which the page asks again.
   */
  private async isOpen(seat: string): Promise<boolean> {
    const pairing = await this.repository.pairing(seat);
    if (!pairing) return false;
    if (pairing.state === 'playing' || pairing.state === 'finished') return true;
    if (pairing.state !== 'opening') return false;
    const request: GetRoomRequest = { roomId: pairing._id };
    return this.rpc.request(Requests.rooms.get, request).then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
        throw error;
      },
    );
  }

  /**
   * The arena's whole ranking (every page of a big arena asks for it): read whole once, then
   * ranked again with the entries the notices named read again by id. Read whole again after
   * RANKING_KEPT_MS, in case a notice (core NATS) was lost, or after a notice that named nobody.
   */
  private async ranking(arenaId: string): Promise<ArenaStanding[]> {
    const now = Date.now();
    const kept = this.rankings.get(arenaId);
    if (kept && !kept.whole && now - kept.at < RANKING_KEPT_MS) {
      if (kept.changed.size === 0) return kept.ranking;
      const changed = [...kept.changed];
      kept.changed = new Set();
      return this.rank(arenaId, kept, () => this.repository.entrantsOf(arenaId, changed));
    }
    for (const [id, { at }] of this.rankings) if (now - at >= RANKING_KEPT_MS) this.rankings.delete(id);
    const fresh: KeptRanking = {
      at: now,
      changed: new Set(),
      whole: false,
      entrants: new Map(),
      ranking: Promise.resolve([]),
    };
    return this.rank(arenaId, fresh, () => this.repository.standingsOf(arenaId));
  }

  /**
   * Ranks the kept entrants again once `read`'s entries are in, after the reads before it; a failed
   * read drops them, so that the next request reads them whole.
   */
  private rank(
    arenaId: string,
    kept: KeptRanking,
    read: () => Promise<EntrantDoc[]>,
  ): Promise<ArenaStanding[]> {
    const ranking = kept.ranking
      .catch(() => [])
      .then(read)
      .then((entrants) => {
        for (const entrant of entrants) kept.entrants.set(entrant.playerId, entrant);
        return rankScores([...kept.entrants.values()]);
      });
    kept.ranking = ranking;
    this.rankings.set(arenaId, kept);
    ranking.catch(() => {
      if (this.rankings.get(arenaId)?.ranking === ranking) this.rankings.delete(arenaId);
    });
    return ranking;
  }

  private view(arena: ArenaWindow, nowMs: number, ranking: readonly ArenaStanding[]): ArenaView {
    const status = nowMs < arena.startsAt ? 'upcoming' : nowMs < arena.endsAt ? 'running' : 'ended';
    return {
      arenaId: arena.arenaId,
      eventId: arena.eventId as ArenaEventId,
      name: arenaEventName(arena.eventId),
      startsAt: new Date(arena.startsAt).toISOString(),
      endsAt: new Date(arena.endsAt).toISOString(),
      status,
      standings: ranking.slice(0, this.config.STANDINGS_SHOWN),
    };
  }

  /** An ended arena's standings: its final ones once settled, else as they are; null when nobody joined. */
  private async finalView(arena: ArenaWindow): Promise<ArenaView | null> {
    const doc = await this.repository.arena(arena.arenaId);
    if (!doc) return null;
    // A settled arena keeps its final standings.
    return this.view(arena, Number.MAX_SAFE_INTEGER, doc.final ?? (await this.ranking(arena.arenaId)));
  }

  /** The final standings, from every entrant as stored now. */
  async finalRanking(arenaId: string): Promise<ArenaStanding[]> {
    return rankScores(await this.repository.standingsOf(arenaId)).slice(0, this.config.STANDINGS_SHOWN);
  }

  /** Join the event's running or next arena. */
  async join(eventId: unknown, caller: TokenClaims, nowMs = Date.now()): Promise<EventArenaResponse> {
    const schedule = this.scheduleOf(eventId);
    if (!schedule) throw new AppError('NOT_FOUND', ARENA_MESSAGES.unavailable);
    const arena = currentOrNextArena(schedule, nowMs);
    await this.repository.ensureArena({ _id: arena.arenaId, ...arena });
    await this.repository.join(arena.arenaId, { id: caller.userId, name: caller.name }, nowMs);
    this.logger.info({ arenaId: arena.arenaId, playerId: caller.userId }, 'joined an arena');
    this.changed(arena.eventId, [caller.userId]);
    return this.event(eventId, caller, nowMs);
  }

  /** Leave: not paired again until the next Join; a game being played still counts. */
  async leave(eventId: unknown, caller: TokenClaims, nowMs = Date.now()): Promise<EventArenaResponse> {
    const schedule = this.scheduleOf(eventId);
    if (!schedule) throw new AppError('NOT_FOUND', ARENA_MESSAGES.unavailable);
    const arena = currentOrNextArena(schedule, nowMs);
    if (!(await this.repository.leave(arena.arenaId, caller.userId))) {
      throw new AppError('CONFLICT', ARENA_MESSAGES.notJoined);
    }
    this.changed(arena.eventId, [caller.userId]);
    return this.event(eventId, caller, nowMs);
  }

  /** The arena of an arena room, with its players' scores; 404 for any other room. */
  async room(roomId: unknown): Promise<ArenaRoomResponse> {
    const pairing = typeof roomId === 'string' ? await this.repository.pairing(roomId) : null;
    const arena = pairing ? await this.repository.arena(pairing.arenaId) : null;
    if (!pairing || !arena) throw new AppError('NOT_FOUND', 'This is not an arena room.');
    const standings = await this.ranking(arena._id);
    return {
      roomId: pairing._id,
      arenaId: arena._id,
      eventId: arena.eventId as ArenaEventId,
      name: arenaEventName(arena.eventId),
      endsAt: new Date(arena.endsAt).toISOString(),
      players: pairing.players.map((p) => {
        const standing = standings.find((s) => s.playerId === p.id);
        return { playerId: p.id, name: p.name, score: standing?.score ?? 0, rank: standing?.rank ?? 0 };
      }),
    };
  }

  /**
   * game.finished, a batch at a time: scores the first game of each arena room for both players,
   * once each (a redelivery or a second replica scores nothing more), and frees them for the next
   * pairing; one write for all the batch's scores. Games of other rooms are not the arena's: rooms
   * marks each arena room's game with its arenaId, so the others cost no read.
   */
  async onGamesFinished(games: readonly GameFinished[]): Promise<void> {
    const firsts = games.filter((game) => game.gameNumber === 1 && game.arenaId !== undefined);
    if (firsts.length === 0) return;
    const pairings = new Map(
      (await this.repository.pairingsOf(firsts.map((game) => game.roomId))).map((p) => [p._id, p]),
    );
    const arenaGames = firsts.flatMap((game) => {
      const pairing = pairings.get(game.roomId);
      return pairing ? [{ game, arenaId: pairing.arenaId, at: Date.parse(game.finishedAt) }] : [];
    });
    if (arenaGames.length === 0) return;
    const scores = arenaGames.flatMap(({ game, arenaId, at }) => {
      const players = [game.player1, game.player2];
      return players.map((player, i) => ({
        arenaId,
        playerId: player.id,
        game: {
          gameId: game.gameId,
          tally: tallyOf(outcomeFor(game, player.id)),
          opponent: (players[1 - i] ?? player).id,
          at,
          left: leftArena(game, player.id),
        },
      }));
    });
    const scored = await this.repository.score(scores);
    for (const { game, arenaId } of arenaGames) {
      const outcomes = Object.fromEntries(
        [game.player1, game.player2].map((p) => [p.id, outcomeFor(game, p.id)]),
      );
      this.logger.info(
        { arenaId, roomId: game.roomId, outcomes, scoredInBatch: scored },
        'arena game scored',
      );
    }
    if (scored > 0) {
      const now = Date.now();
      for (const { at } of arenaGames)
        if (Number.isFinite(at)) this.scoringLag.observe(Math.max(0, now - at) / 1000);
    }
    // Also when scored before: a crash after the scores left the notices and pairings undone. The
    // notices go first: they free the players for the lease holder, whichever replica it is.
    for (const arenaId of new Set(arenaGames.map((g) => g.arenaId))) {
      const players = arenaGames
        .filter((g) => g.arenaId === arenaId)
        .flatMap(({ game }) => [game.player1.id, game.player2.id]);
      this.changed(eventOfArena(arenaId), players, { freed: scored > 0 });
    }
    await this.repository.finishPairings(arenaGames.map(({ game }) => game.roomId));
  }

  /**
   * Tells the gateways and the tournaments replicas that an event's arena changed, whose own entry
   * did, and how (ArenaChanged): core NATS, where a lost one costs a refetch, or a tick's wait.
   */
  changed(
    eventId: string,
    players: string[] = [],
    how: { freed?: boolean; seats?: Record<string, string> } = {},
  ): void {
    if (how.seats) this.opened(Object.values(how.seats));
    else this.standingsChanged(eventId, players);
    const notice: ArenaChanged = {
      eventId,
      players,
      ...(how.freed && { freed: true }),
      ...(how.seats && { seated: true, seats: how.seats }),
    };
    this.jetstream.broadcast(arenaChangedSubject(eventId), notice);
  }
}
