import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  ARENA_EVENTS,
  ARENA_MESSAGES,
  type ArenaEventId,
  arenaChangedSubject,
  arenaEventName,
  eventOfArena,
  type ArenaRoomResponse,
  type ArenaView,
  type EventArenaResponse,
  type GameFinished,
  isArenaEvent,
  type TokenClaims,
} from '@oasis198/contracts';
import { CONFIG, JetStreamService, LOGGER, type Logger } from '@oasis198/service-kit';
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
@Injectable()
export class ArenaService {
  readonly schedules: EventSchedule[];

  constructor(
    private readonly repository: ArenaRepository,
    private readonly jetstream: JetStreamService,
    @Inject(CONFIG) private readonly config: TournamentsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.schedules = schedulesFrom(config);
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
    const entrants = await this.repository.standingsOf(current.arenaId);
    const arena = this.view(current, nowMs, entrants);
    const before = isRunning(current, nowMs) ? null : await this.finalView(previousArena(schedule, nowMs));
    // The caller's entry is one of the arena's, read with them.
    const mine = caller?.userId ? entrants.find((e) => e.playerId === caller.userId) : undefined;
    // A seat is named once rooms has opened it: one being opened may still be refused (a busy
    // player), and its page would find no room there.
    const pairing = mine?.roomId ? await this.repository.pairing(mine.roomId) : null;
    const roomId = pairing?.state === 'playing' || pairing?.state === 'finished' ? pairing._id : null;
    return { ...none, arena, previous: before, joined: !!mine?.joined, roomId };
  }

  private view(arena: ArenaWindow, nowMs: number, entrants: readonly EntrantDoc[]): ArenaView {
    const status = nowMs < arena.startsAt ? 'upcoming' : nowMs < arena.endsAt ? 'running' : 'ended';
    return {
      arenaId: arena.arenaId,
      eventId: arena.eventId as ArenaEventId,
      name: arenaEventName(arena.eventId),
      startsAt: new Date(arena.startsAt).toISOString(),
      endsAt: new Date(arena.endsAt).toISOString(),
      status,
      standings: this.rank(entrants),
    };
  }

  /** An ended arena's standings: its final ones once settled, else as they are; null when nobody joined. */
  private async finalView(arena: ArenaWindow): Promise<ArenaView | null> {
    const doc = await this.repository.arena(arena.arenaId);
    if (!doc) return null;
    // A settled arena keeps its final standings: no need to read all its entrants again.
    if (doc.final) {
      return {
        ...this.view(arena, Number.MAX_SAFE_INTEGER, []),
        standings: doc.final.slice(0, this.config.STANDINGS_SHOWN),
      };
    }
    return this.view(arena, Number.MAX_SAFE_INTEGER, await this.repository.standingsOf(arena.arenaId));
  }

  rank(entrants: readonly EntrantDoc[]) {
    return rankScores(entrants).slice(0, this.config.STANDINGS_SHOWN);
  }

  /** Join the event's running or next arena. */
  async join(eventId: unknown, caller: TokenClaims, nowMs = Date.now()): Promise<EventArenaResponse> {
    const schedule = this.scheduleOf(eventId);
    if (!schedule) throw new AppError('NOT_FOUND', ARENA_MESSAGES.unavailable);
    const arena = currentOrNextArena(schedule, nowMs);
    await this.repository.ensureArena({ _id: arena.arenaId, ...arena });
    await this.repository.join(arena.arenaId, { id: caller.userId, name: caller.name }, nowMs);
    this.logger.info({ arenaId: arena.arenaId, playerId: caller.userId }, 'joined an arena');
    this.changed(arena.eventId);
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
    this.changed(arena.eventId);
    return this.event(eventId, caller, nowMs);
  }

  /** The arena of an arena room, with its players' scores; 404 for any other room. */
  async room(roomId: unknown): Promise<ArenaRoomResponse> {
    const pairing = typeof roomId === 'string' ? await this.repository.pairing(roomId) : null;
    const arena = pairing ? await this.repository.arena(pairing.arenaId) : null;
    if (!pairing || !arena) throw new AppError('NOT_FOUND', 'This is not an arena room.');
    const standings = rankScores(await this.repository.standingsOf(arena._id));
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
   * game.finished: scores the first game of an arena room for both players, once each (a
   * redelivery or a second replica scores nothing more), and frees them for the next pairing.
   * Games of other rooms are not the arena's.
   */
  async onGameFinished(game: GameFinished): Promise<void> {
    const pairing = await this.repository.pairing(game.roomId);
    if (!pairing || game.gameNumber !== 1) return;
    const at = Date.parse(game.finishedAt);
    const players = [game.player1, game.player2];
    for (const [i, player] of players.entries()) {
      const outcome = outcomeFor(game, player.id);
      const scored = await this.repository.score(pairing.arenaId, player.id, {
        gameId: game.gameId,
        tally: tallyOf(outcome),
        opponent: (players[1 - i] ?? player).id,
        at,
        left: leftArena(game, player.id),
      });
      this.logger.info(
        { arenaId: pairing.arenaId, playerId: player.id, outcome, scored },
        'arena game scored',
      );
    }
    await this.repository.setPairing(pairing._id, 'finished');
    this.changed(eventOfArena(pairing.arenaId));
  }

  /** Tells the gateways that an event's arena changed (core NATS; a lost one costs a refetch). */
  changed(eventId: string): void {
    this.jetstream.broadcast(arenaChangedSubject(eventId), { eventId });
  }
}
