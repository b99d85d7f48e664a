import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  ARENA_MESSAGES,
  ARENA_TURN_SECONDS,
  COMMON_MESSAGES,
  type DeadlineDueRequest,
  type DeadlineDueResponse,
  type EditRoomResponse,
  type ListRoomsRequest,
  type MessageResponse,
  type OpenArenaRoomRequest,
  openArenaRoomRequestSchema,
  type OpenArenaRoomResponse,
  openArenaRoomsRequestSchema,
  type OpenArenaRoomsResponse,
  parseWith,
  type Person,
  ROOM_MESSAGES,
  type RoomPage,
  roomPushHeaders,
  type RoomView,
  Streams,
  type TokenClaims,
} from '@oasis198/contracts';
import {
  DEFAULT_TURN_DURATION,
  initialGameState,
  isGameType,
  MESSAGES,
  ROOM_PAGE_SIZE,
} from '@oasis198/game-rules';
import {
  CallerGaveUpError,
  CONFIG,
  currentDeadline,
  JetStreamService,
  LOGGER,
  type Logger,
  Metrics,
  pastDeadline,
  readablePage,
  timed,
  WorkLine,
} from '@oasis198/service-kit';
import { Types } from 'mongoose';
import { Histogram } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RoomsConfig } from '../config';
import { parseCreateRoom } from './dto/create-room.dto';
import { parseEditIntent } from './dto/edit-room.dto';
import { arenaBatchRefusal, type ArenaSeat, planSeats, seatsOf } from './arena-batch';
import { cryptoRandom } from './random';
import { FIRST_ROOM_VERSION, type RoomRecord } from './room.schema';
import { eventsFor, hasLastState } from './room-events';
import { PasscodeLimit } from './passcode-limit';
import { type LoggedRoom, RoomLog, type RoomLogEntry } from './room-log';
import { type RoomPush, roomPushes } from './room-push';
import { RoomProjector } from './room-projector';
import {
  type DeadlinePlan,
  isUnchanged,
  type Plan,
  planDeadline,
  planDelete,
  planJoin,
  planLeave,
  planMove,
  planReady,
  seatOf,
  type Transition,
} from './room-transitions';
import { RecentRooms } from './recent-rooms';
import { toRoomView } from './room-view';
import { RoomsRepository } from './rooms.repository';

/** Attempts of one change when the room keeps changing under it; the loser then gets 409. */
const MAX_ATTEMPTS = 6;
/** A membership younger than this may belong to a join or create still in progress; it is never healed. */
const MEMBERSHIP_SETTLE_MS = 10_000;
const ROOM_ID = /^[0-9a-f]{24}$/;
/** Rooms remembered for the next change's first guess; a room played on is changed every few seconds. */
const RECENT_ROOMS = 5000;
/** Play now: the lease that makes one pairing decision at a time, how long it lasts, and how long to wait for it. */
const PLAY_NOW_LEASE = 'play-now';
const PLAY_NOW_LEASE_MS = 5000;
const PLAY_NOW_WAIT_MS = 8000;
/** Open rooms Play now tries, oldest first, before it opens one (each may be taken meanwhile). */
const PLAY_NOW_CANDIDATES = 5;

const notFound = () => new AppError('NOT_FOUND', ROOM_MESSAGES.notFound);

/**
 * The use cases of rooms; every change goes through change(). The commit protocol (the room log's
 * guarded append, the projector) is told in docs/architecture.md, "Rules of the road".
 */
@Injectable()
export class RoomsService {
  /** Rooms as this replica last logged them: the first guess of the next change (see change()). */
  private readonly recent = new RecentRooms(RECENT_ROOMS);
  /** Play now's requests of this replica, one at a time to the pairing lease (see playNow()). */
  private readonly playNowLine = new WorkLine(1);
  private readonly arenaSteps: Histogram<'step'>;

  constructor(
    private readonly repository: RoomsRepository,
    private readonly jetstream: JetStreamService,
    private readonly log: RoomLog,
    /** The room log's projector of this replica. */
    readonly projector: RoomProjector,
    private readonly passcodes: PasscodeLimit,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: RoomsConfig,
    metrics: Metrics,
  ) {
    this.arenaSteps = new Histogram({
      name: 'oasis_rooms_arena_opening_seconds',
      help:
        'The steps of opening a batch of arena rooms (one each per request): logged (their log reads), ' +
        'leave (the players leave their finished arena rooms in the log), memberships (moved or taken), ' +
        'leave-release and leave-project (beside them: the leavers not seated now released, the rooms ' +
        'left projected), refuse (the rooms with a busy player logged as refused), numbers (reserved), ' +
        'append (the rooms logged), total.',
      labelNames: ['step'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    });
  }

  /** Runs one step of an arena batch's opening and observes its time. */
  private step<T>(step: string, work: () => Promise<T>): Promise<T> {
    return timed(this.arenaSteps, { step }, work);
  }

  // ---------------------------------------------------------------------------------- reads

  async list(request: Partial<ListRoomsRequest>): Promise<RoomPage> {
    const page = request.page ?? 1;
    if (!Number.isInteger(page) || page < 1)
      throw new AppError('VALIDATION', 'page must be a whole number from 1.');
    if (request.gameType !== undefined && !isGameType(request.gameType)) {
      throw new AppError('VALIDATION', MESSAGES.gameType);
    }
    // A page past any offset the database takes (?page=3.6e307) is empty, not a database error.
    const read = readablePage(page, ROOM_PAGE_SIZE);
    const { rooms, total } = await this.repository.list({
      page: read.page,
      pageSize: ROOM_PAGE_SIZE,
      freeSpot: request.freeSpot === true,
      gameType: request.gameType,
    });
    const now = Date.now();
    const shown = read.beyond ? [] : (await this.asLogged(rooms)).map((room) => toRoomView(room, now));
    return { rooms: shown, page, pageSize: ROOM_PAGE_SIZE, total };
  }

  /**
   * The rooms as their logs have them now: MongoDB holds a room as of its last change that lists
   * see (players, a game started or ended), not its moves, which only the log has. A room the log
   * has no newer state of (one from before the log) is shown as stored.
   */
  private async asLogged(rooms: readonly RoomRecord[]): Promise<RoomRecord[]> {
    const logged = await Promise.all(rooms.map((room) => this.log.last(room._id)));
    return rooms.map((room, i) => {
      const last = logged[i];
      return last && !last.deleted && last.room.version > room.version ? last.room : room;
    });
  }

  async get(roomId: unknown): Promise<RoomView> {
    return toRoomView((await this.load(roomId)).room, Date.now());
  }

  /** The caller's current room; 404 when they are in none. */
  async mine(caller: TokenClaims): Promise<RoomView> {
    const room = await this.roomOf(callerId(caller));
    if (!room) throw notFound();
    return toRoomView(room, Date.now());
  }

  /** The room the player plays in, if any (a membership left over from a gone room is healed). */
  private async roomOf(playerId: string): Promise<RoomRecord | null> {
    const membership = await this.repository.membershipOf(playerId);
    if (!membership) return null;
    const room = await this.read(membership.roomId);
    if (!room || !seatOf(room, playerId)) {
      await this.healIfStale(playerId, membership);
      return null;
    }
    return room;
  }

  // -------------------------------------------------------------------------------- changes

  /**
   * Play now: the caller's room if they already have one (a second press changes nothing), else a
   * seat in the oldest open room (no passcode, one player waiting), else a new room of their own.
   * One pairing decision at a time, under a lease shared by every replica: pressed by 20 players
   * at once it makes 10 games, never a room of 3 (a join is still judged on the room as stored,
   * so a seat taken through the list at the same moment is refused, and the next room is tried).
   */
  async playNow(caller: TokenClaims): Promise<RoomView> {
    const playerId = callerId(caller);
    const own = await this.roomOf(playerId);
    if (own) return toRoomView(own, Date.now());
    this.assertCanLog();
    // Waits no longer than the caller does: a pairing decided after the caller was told 503 would
    // seat a player who does not know it, and the waiting opponent would play against an absence.
    // Read here: work in a line runs in the context of the work before it.
    const deadline = currentDeadline();
    const until = Math.min(Date.now() + PLAY_NOW_WAIT_MS, deadline ?? Infinity);
    // One request of this replica at a time asks for the lease; the others wait here, not in the
    // database: each poll is an insert and an update, writes that slowed the pairings themselves.
    return this.playNowLine.run(() => this.pairUnderLease(caller, playerId, deadline, until));
  }

  /** Play now's pairing decision, under the lease every replica shares. */
  private async pairUnderLease(
    caller: TokenClaims,
    playerId: string,
    deadline: number | undefined,
    until: number,
  ): Promise<RoomView> {
    const owner = randomUUID();
    while (!(await this.repository.takeLease(PLAY_NOW_LEASE, owner, PLAY_NOW_LEASE_MS))) {
      if (pastDeadline(deadline)) throw new CallerGaveUpError();
      if (Date.now() > until) throw new AppError('UNAVAILABLE', COMMON_MESSAGES.unavailable);
      await sleep(5 + Math.floor(Math.random() * 20));
    }
    try {
      if (pastDeadline(deadline)) throw new CallerGaveUpError();
      for (const room of await this.repository.openRooms(PLAY_NOW_CANDIDATES)) {
        try {
          return await this.join(caller, room._id, '');
        } catch (error) {
          // Taken, gone or closed meanwhile: the next one.
          if (
            !(error instanceof AppError) ||
            !['ROOM_FULL', 'CONFLICT', 'NOT_FOUND', 'FORBIDDEN'].includes(error.code)
          ) {
            throw error;
          }
        }
      }
      return await this.create(caller, {
        gameType: 'quick-battle',
        createdBy: { id: playerId, name: caller.name },
        duration: DEFAULT_TURN_DURATION,
        passCode: '',
      });
    } finally {
      await this.repository.releaseLease(PLAY_NOW_LEASE, owner).catch(() => undefined);
    }
  }

  /** Creates a room with the caller as player 1 (so SPEC's later auto-join is a harmless repeat). */
  async create(caller: TokenClaims, body: unknown): Promise<RoomView> {
    const playerId = callerId(caller);
    const input = parseCreateRoom(body, caller);
    // Arena rooms are opened by the arenas alone, with both players seated.
    if (input.gameType === 'tournament') throw new AppError('FORBIDDEN', ARENA_MESSAGES.roomsByArena);
    const roomId = new Types.ObjectId().toHexString();
    const now = Date.now();
    this.assertCanLog(); // 503 while a stream is full: no room that cannot be logged or whose events cannot go out
    await this.takeMembership(playerId, roomId, new Date(now));
    try {
      const roomNumber = await this.repository.nextRoomNumber();
      const me: Person = { id: playerId, name: caller.name };
      const room: RoomRecord = {
        _id: roomId,
        name: `Room ${roomNumber}`,
        roomNumber,
        gameType: input.gameType,
        createdBy: me,
        duration: input.duration,
        passCode: input.passCode,
        players: [me],
        playerCount: 1,
        gameStarted: false,
        gameOver: false,
        whosTurn: initialGameState(),
        version: FIRST_ROOM_VERSION,
        waitingSince: new Date(now),
        gameStartedAt: null,
        aiJoinAfter: input.aiOpponent ? this.config.AI_JOIN_AFTER_S : null,
        createdAt: new Date(now),
        updatedAt: new Date(now),
      };
      const view = await this.appendNewRoom(room, now);
      if (view === null) throw new Error(`room ${roomId} is already in the room log`);
      this.logger.info({ roomId, roomNumber }, 'room created');
      return view;
    } catch (error) {
      await this.repository.releaseMemberships([playerId], roomId);
      throw error;
    }
  }

  /** PATCH /api/rooms/{id}/edit: exactly one intent (join, leave, ready, move), judged here. */
  async edit(caller: TokenClaims, roomId: unknown, body: unknown): Promise<EditRoomResponse> {
    const playerId = callerId(caller);
    const intent = parseEditIntent(body, caller);
    switch (intent.kind) {
      case 'join':
        return { room: await this.join(caller, roomId, intent.passCode) };
      case 'leave': {
        const room = await this.change(roomId, (r, now) => planLeave(r, playerId, now));
        return { room: toRoomView(room, Date.now()) };
      }
      case 'ready': {
        const room = await this.change(roomId, (r, now) =>
          planReady(r, playerId, intent.seat, now, cryptoRandom),
        );
        return { room: toRoomView(room, Date.now()) };
      }
      case 'move': {
        const room = await this.change(roomId, (r, now) =>
          planMove(r, playerId, intent.move, now, cryptoRandom),
        );
        return { room: toRoomView(room, Date.now()) };
      }
    }
  }

  async delete(caller: TokenClaims, roomId: unknown): Promise<MessageResponse> {
    const playerId = callerId(caller);
    await this.change(roomId, (room, now) => planDelete(room, playerId, now));
    return { message: ROOM_MESSAGES.deleted };
  }

  /**
   * user.deleted: the player leaves the room they play in, as Leave does (a running game ends with
   * them as the loser, 'left', and the room goes). Nothing when they play in none; a redelivery
   * finds them in none.
   */
  async onUserDeleted(playerId: string): Promise<void> {
    const room = await this.roomOf(playerId);
    if (!room) return;
    try {
      await this.change(room._id, (r, now) =>
        seatOf(r, playerId) ? planLeave(r, playerId, now) : { unchanged: true },
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return;
      throw error;
    }
    this.logger.info({ playerId, roomId: room._id }, 'a deleted account left its room');
  }

  /** From the game timer: applies a due deadline if it is still current; never twice. */
  async deadline(request: DeadlineDueRequest): Promise<DeadlineDueResponse> {
    let outcome: DeadlineDueResponse = { applied: false, reason: 'gone' };
    try {
      await this.change(request.roomId, (room, now): Plan => {
        const plan: DeadlinePlan = planDeadline(room, request, now, cryptoRandom);
        if ('notApplied' in plan) {
          outcome = { applied: false, reason: plan.notApplied };
          return { unchanged: true };
        }
        outcome = { applied: true };
        return plan;
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return { applied: false, reason: 'gone' };
      throw error;
    }
    if (outcome.applied) this.logger.info({ ...request }, 'deadline applied');
    return outcome;
  }

  /**
   * From tournaments: opens arena rooms, each with both players seated and its game started (a
   * tournament room: 14 s turns, no passcode). A batch (`rooms`) is answered room by room; a
   * single room's request is a batch of one. Once per roomId: a retry finds it in the room log and
   * opens nothing more. A player still seated in their finished arena room leaves it first; a
   * player in any other room is busy, and their room is not opened (the others are). A room not
   * in the log when a request comes after its arena's end (`endsAt`) is not opened: `ended`.
   */
  async openArena(request: unknown): Promise<OpenArenaRoomResponse | OpenArenaRoomsResponse> {
    if (typeof request === 'object' && request !== null && 'rooms' in request) {
      const { rooms } = parseWith(openArenaRoomsRequestSchema, request);
      return { rooms: await this.step('total', () => this.openArenas(rooms)) };
    }
    const [answer] = await this.step('total', () =>
      this.openArenas([parseWith(openArenaRoomRequestSchema, request)]),
    );
    if (!answer) throw new Error('an arena room was asked for and not answered');
    return answer;
  }

  /**
   * Opens a batch of arena rooms, each step for all of them at once: their log reads side by
   * side, the memberships in one insert (a conflict looked into per player, as a join does), the
   * room numbers in one increment, the appends side by side. A fault other than a busy player
   * gives back every membership taken for a room not opened and fails the whole request: the
   * rooms opened answer as opened to its retry. The log decides each room once: its first
   * message opens it, or refuses it (a busy player), and every request answers as it says.
   */
  private async openArenas(requests: readonly OpenArenaRoomRequest[]): Promise<OpenArenaRoomResponse[]> {
    const refusal = arenaBatchRefusal(requests);
    if (refusal) throw new AppError('VALIDATION', refusal);
    const answers = new Map<string, OpenArenaRoomResponse>();
    const logged = await this.step('logged', () => Promise.all(requests.map((r) => this.log.last(r.roomId))));
    for (const [i, r] of requests.entries()) {
      const entry = logged[i];
      if (entry) answers.set(r.roomId, decided(r.roomId, entry));
    }
    // Decided once, as the request comes and before it takes a seat, so it never gives back the
    // seats of an earlier request for the same room that is still opening it.
    for (const r of endedBy(requests, Date.now())) if (!answers.has(r.roomId)) answers.set(r.roomId, ENDED);
    const rooms = requests.filter((r) => !answers.has(r.roomId));
    const answer = () => requests.map((r) => answers.get(r.roomId) ?? opened(r.roomId));
    if (rooms.length === 0) return answer();
    this.assertCanLog();
    // Reserved beside the leaves and memberships, for every room asked (a busy one's number goes unused).
    const numbers = this.step('numbers', () => this.repository.reserveRoomNumbers(rooms.length));
    numbers.catch(() => undefined);
    const seats = seatsOf(rooms);
    const left = await this.step('leave', () => this.leaveFinishedArenas(seats));
    const now = Date.now();
    const [taken] = await Promise.all([
      this.step('memberships', () => this.takeMemberships(seats, new Date(now), left.moving)),
      left.written,
    ]);
    const plan = planSeats(rooms, taken);
    const refusals = await this.step('refuse', () =>
      Promise.allSettled(
        rooms.flatMap((r) => {
          const busy = plan.busy.get(r.roomId);
          return busy && !busy.opened ? [this.refuse(r, busy.busy, now)] : [];
        }),
      ),
    );
    for (const r of refusals) if (r.status === 'fulfilled') answers.set(...r.value);
    // Seats go back for the rooms the log refused. A room another request opened meanwhile keeps
    // its players' (they are its seats); one whose refusal failed keeps them too, as a stale
    // membership that the player's next join heals.
    await this.repository.releaseSeats(
      plan.release.filter((seat) => answers.get(seat.roomId)?.opened === false),
    );
    const refusalFault = refusals.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refusalFault) {
      await this.repository.releaseSeats(seatsOf(plan.open));
      throw refusalFault.reason;
    }
    if (plan.open.length === 0) return answer();
    const first = await numbers.catch(async (error: unknown) => {
      await this.repository.releaseSeats(seatsOf(plan.open));
      throw error;
    });
    const appended = await this.step('append', () =>
      Promise.allSettled(plan.open.map((room, i) => this.appendArenaRoom(room, first + i, now))),
    );
    // The rooms new to the log go to the lists in one write, beside the answer (best effort: the
    // projector writes any it did not).
    const fresh = appended.flatMap((a) => (a.status === 'fulfilled' && a.value ? [a.value] : []));
    void this.projector
      .writeNew(fresh)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, rooms: fresh.length },
          'projecting arena rooms at once failed; the projector will',
        ),
      );
    const fault = appended.find((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (fault) {
      // A room appended keeps its seats (the log has it); the others give theirs back.
      await this.repository.releaseSeats(
        seatsOf(plan.open.filter((_, i) => appended[i]?.status === 'rejected')),
      );
      throw fault.reason;
    }
    // Already in the log: opened by another request for it (a retry), or refused by one.
    const before = plan.open.filter((_, i) => {
      const result = appended[i];
      return result?.status === 'fulfilled' && result.value === null;
    });
    const refused = (await Promise.all(before.map((r) => this.log.last(r.roomId)))).flatMap((entry, i) => {
      const room = before[i];
      return room && entry?.refused ? [{ room, answer: decided(room.roomId, entry) }] : [];
    });
    for (const { room, answer: refusal } of refused) answers.set(room.roomId, refusal);
    await this.repository.releaseSeats(seatsOf(refused.map(({ room }) => room)));
    return answer();
  }

  /**
   * Logs the refusal of an arena room with a busy player as the room's first message, unless
   * another request for it logged first: the answer the log then gives, by room.
   */
  private async refuse(
    request: OpenArenaRoomRequest,
    busy: string[],
    now: number,
  ): Promise<[string, OpenArenaRoomResponse]> {
    const room: RoomRecord = { ...waitingArenaRoom(request, 0, now), version: FIRST_ROOM_VERSION };
    const entry: RoomLogEntry = { room, events: [], deleted: true, listed: false, refused: busy };
    const first = (await this.log.append(entry, 0)) === null ? await this.log.last(request.roomId) : null;
    return [request.roomId, decided(request.roomId, first ?? { refused: busy })];
  }

  /** Logs the arena room with both players seated and its game started; already logged is opened too. */
  private async appendArenaRoom(
    request: OpenArenaRoomRequest,
    roomNumber: number,
    now: number,
  ): Promise<RoomRecord | null> {
    const { roomId, arenaId, players } = request;
    const plan = planJoin(waitingArenaRoom(request, roomNumber, now), players[1], '', now, cryptoRandom);
    if (isUnchanged(plan)) throw new Error(`arena room ${roomId}: the second player was not seated`);
    // Null: already in the log, opened by a repeat of this request (or refused: see openArenas).
    const room: RoomRecord = { ...plan.next, version: FIRST_ROOM_VERSION };
    if ((await this.appendNewRoom(room, now, 'caller')) === null) return null;
    this.logger.info({ roomId, roomNumber, arenaId }, 'arena room opened');
    return room;
  }

  /**
   * Takes each seat's membership: a player who has just left their finished arena room (`moving`:
   * the room left, by player) has it moved from that room, the others get one, each kind in one
   * write, side by side. A player whose membership did not move, or who has one already, is looked
   * into as a join does (a stale one is healed). Whether each seat was taken, in order; false means
   * the player is in another room. Any other fault gives back what was taken and is thrown.
   */
  private async takeMemberships(
    seats: readonly ArenaSeat[],
    at: Date,
    moving: ReadonlyMap<string, string> = new Map(),
  ): Promise<boolean[]> {
    const moves = seats.flatMap((seat) => {
      const from = moving.get(seat.playerId);
      return from ? [{ ...seat, from }] : [];
    });
    const fresh = seats.filter((seat) => !moving.has(seat.playerId));
    const [refusedFresh, moved] = await Promise.all([
      this.repository.claimMemberships(fresh, at),
      this.repository.moveMemberships(moves, at),
    ]);
    // Only when some did not move is it read which.
    const movedTo = new Map(
      moved < moves.length
        ? (await this.repository.membershipsOf(moves.map((m) => m.playerId))).map((m) => [m._id, m.roomId])
        : moves.map((m) => [m.playerId, m.roomId]),
    );
    const refused = new Set<ArenaSeat>([
      ...refusedFresh.flatMap((i) => fresh[i] ?? []),
      ...seats.filter((seat) => moving.has(seat.playerId) && movedTo.get(seat.playerId) !== seat.roomId),
    ]);
    const taken = await Promise.allSettled(
      seats.map((seat) =>
        refused.has(seat) ? this.takeMembership(seat.playerId, seat.roomId, at) : undefined,
      ),
    );
    const fault = taken.find(
      (t): t is PromiseRejectedResult =>
        t.status === 'rejected' && !(t.reason instanceof AppError && t.reason.code === 'CONFLICT'),
    );
    if (fault) {
      await this.repository.releaseSeats(seats.filter((_, i) => taken[i]?.status === 'fulfilled'));
      throw fault.reason;
    }
    return taken.map((t) => t.status === 'fulfilled');
  }

  /**
   * The seated players' finished arena rooms (other than the one they are to be seated in) are
   * left, so the arena can seat them again: their memberships read in one query, their rooms at
   * once, different rooms left side by side, and the players of one room in turn (the first leave
   * usually deletes it, which frees the other). The seated players who left are `moving`: their
   * memberships move to their new rooms (takeMemberships) instead of going. The other writes (a
   * leaver's membership released when they are not seated now, the rooms projected) are `written`,
   * which the caller awaits beside the memberships.
   */
  private async leaveFinishedArenas(
    seats: readonly ArenaSeat[],
  ): Promise<{ moving: Map<string, string>; written: Promise<void> }> {
    const to = new Map(seats.map((s) => [s.playerId, s.roomId]));
    const elsewhere = (
      await this.step('leave-memberships', () => this.repository.membershipsOf([...to.keys()]))
    ).filter((m) => m.roomId !== to.get(m._id));
    const rooms = await this.step('leave-rooms', () =>
      Promise.all(elsewhere.map((m) => this.read(m.roomId))),
    );
    const leavers = new Map<string, string[]>();
    for (const [i, room] of rooms.entries()) {
      const playerId = elsewhere[i]?._id;
      if (!room || !playerId || room.gameType !== 'tournament' || !seatOf(room, playerId)) continue;
      if (room.whosTurn.gameOver) leavers.set(room._id, [...(leavers.get(room._id) ?? []), playerId]);
    }
    // The leaves' database writes (memberships released, rooms projected) wait for them all: two
    // writes for the batch instead of two a room, queued behind each other in the database.
    const removal = Promise.withResolvers<boolean>();
    const deferred: DeferredWrites = { released: [], projected: [], removed: removal.promise };
    try {
      await this.step('leave-log', () =>
        Promise.all(
          [...leavers].map(async ([id, players]) => {
            for (const playerId of players) await this.leaveFinishedArena(id, playerId, deferred);
          }),
        ),
      );
    } catch (error) {
      // A deletion noted but not written here: its projector writes it, rather than wait for a
      // write that never comes.
      removal.resolve(false);
      throw error;
    }
    const moving = new Map(
      deferred.released.filter((s) => to.has(s.playerId)).map((s) => [s.playerId, s.roomId]),
    );
    const written = Promise.all([
      this.step('leave-release', () =>
        this.repository.releaseSeats(deferred.released.filter((s) => !to.has(s.playerId))),
      ),
      this.step('leave-project', () => this.projectAll(deferred.projected).then(removal.resolve)),
    ]).finally(() => removal.resolve(false));
    written.catch(() => undefined);
    return { moving, written: written.then(() => undefined) };
  }

  /**
   * Writes changes of rooms' players to MongoDB at once: the deletions in one write (see
   * projectNow). Whether the deletions were written.
   */
  private async projectAll(entries: readonly RoomLogEntry[]): Promise<boolean> {
    const deleted = entries.filter((e) => e.deleted).map((e) => e.room._id);
    const [removed] = await Promise.all([
      this.projector.remove(deleted).then(
        () => true,
        (error: unknown) => {
          this.logger.warn(
            { err: error, rooms: deleted.length },
            'projecting deletions at once failed; the projector will',
          );
          return false;
        },
      ),
      ...entries.filter((e) => !e.deleted).map((e) => this.projectNow(e)),
    ]);
    return removed;
  }

  private async leaveFinishedArena(
    roomId: string,
    playerId: string,
    deferred: DeferredWrites,
  ): Promise<void> {
    await this.change(
      roomId,
      (r, now) =>
        seatOf(r, playerId) && r.whosTurn.gameOver ? planLeave(r, playerId, now) : { unchanged: true },
      deferred,
    ).catch((error: unknown) => {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    });
  }

  // ------------------------------------------------------------------------------ internals

  private async join(caller: TokenClaims, roomId: unknown, passCode: unknown): Promise<RoomView> {
    const playerId = callerId(caller);
    const { room } = await this.load(roomId);
    if (seatOf(room, playerId)) return toRoomView(room, Date.now());
    const me: Person = { id: playerId, name: caller.name };
    await this.passcodes.countAttempt(room, playerId, passCode);
    // Judge once before taking the membership, so a full room or a wrong passcode costs no write.
    planJoin(room, me, passCode, Date.now(), cryptoRandom);
    await this.takeMembership(playerId, room._id, new Date());
    try {
      return toRoomView(
        await this.change(room._id, (r, now) => planJoin(r, me, passCode, now, cryptoRandom)),
        Date.now(),
      );
    } catch (error) {
      // Not in the room after all: the membership taken (or left over) for it goes.
      await this.repository.releaseMemberships([playerId], room._id);
      throw error;
    }
  }

  /**
   * The one way a room changes: load, decide, append guarded by the room's log sequence, retry on
   * a lost race. Returns the room as logged (or as loaded when nothing changed).
   *
   * The first decision is made on the room as this replica last logged it, when it has it (a move
   * follows the previous one of the same room): that saves reading the room back before every
   * change. Only an append can come of it, and the expected sequence refuses it if the room
   * changed elsewhere meanwhile; any other outcome (a refusal, nothing to change) is judged again
   * on the room as logged, so a stale copy never answers a client.
   */
  private async change(
    roomId: unknown,
    decide: (room: RoomRecord, nowMs: number) => Plan,
    deferred?: DeferredWrites,
  ): Promise<RoomRecord> {
    const recent = typeof roomId === 'string' ? this.recent.get(roomId) : undefined;
    if (recent) {
      const now = Date.now();
      let plan: Plan | undefined;
      try {
        plan = decide(recent.room, now);
      } catch {
        plan = undefined; // judged again below on the logged room
      }
      if (plan && !isUnchanged(plan)) {
        const written = await this.write(recent, plan, now, deferred);
        if (written) return written;
      }
      this.recent.delete(recent.room._id);
    }
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load(roomId);
      const now = Date.now();
      const plan = decide(loaded.room, now);
      if (isUnchanged(plan)) return loaded.room;
      const written = await this.write(loaded, plan, now, deferred);
      if (written) return written;
      if (attempt >= MAX_ATTEMPTS) throw new AppError('CONFLICT', ROOM_MESSAGES.concurrent);
      await sleep(2 + Math.floor(Math.random() * 8 * attempt));
    }
  }

  private async write(
    { room, seq }: { room: RoomRecord; seq: number },
    change: Transition,
    nowMs: number,
    deferred?: DeferredWrites,
  ): Promise<RoomRecord | null> {
    // 503 while a stream is full: a change that cannot be logged or published is not made.
    this.assertCanLog();
    const next = change.deleted ? { ...change.next, version: change.deleted.version } : change.next;
    const view = hasLastState(change) ? toRoomView(change.next, nowMs) : null;
    const entry: RoomLogEntry = {
      room: next,
      events: eventsFor(room, change, nowMs, view),
      deleted: !!change.deleted,
      listed: !!change.deleted || isListed(room, next),
    };
    const appended = await this.log.append(entry, seq);
    if (appended === null) return null;
    this.push(roomPushes(room, change, view));
    if (change.deleted) this.recent.delete(room._id);
    else this.recent.set(next, appended);
    const remaining = new Set(change.deleted ? [] : change.next.players.map((p) => p.id));
    const left = room.players.filter((p) => !remaining.has(p.id)).map((p) => p.id);
    if (deferred) deferred.released.push(...left.map((playerId) => ({ playerId, roomId: room._id })));
    else await this.repository.releaseMemberships(left, room._id);
    if (change.deleted) this.logger.info({ roomId: room._id, reason: change.deleted.reason }, 'room deleted');
    // Who is in which room is what lists, Play now and memberships go by: written before the
    // answer. A game started or ended is written by the projector at once, off the move's path.
    if (entry.deleted || playersChanged(room, next)) {
      if (deferred) {
        deferred.projected.push(entry);
        // Its projector takes the change at once: it waits for this write rather than doubling it.
        if (entry.deleted) this.projector.expect(room._id, Infinity, deferred.removed);
      } else await this.projectNow(entry);
    }
    return next;
  }

  /**
   * Logs a new room as its stream's first entry, then pushes and projects it. Null when the room
   * is in the log already: whether that is a repeat or a fault is the caller's to say. `caller`
   * leaves the projection to the caller: arena rooms are projected a batch at a time, after the
   * answer (an arena room is never a Play now candidate; the projector makes it in any case).
   */
  private async appendNewRoom(
    room: RoomRecord,
    nowMs: number,
    project: 'now' | 'caller' = 'now',
  ): Promise<RoomView | null> {
    const view = toRoomView(room, nowMs);
    const entry: RoomLogEntry = {
      room,
      events: eventsFor(null, { next: room }, nowMs, view),
      deleted: false,
      listed: true,
    };
    const seq = await this.log.append(entry, 0);
    if (seq === null) return null;
    this.recent.set(room, seq);
    this.push(roomPushes(null, { next: room }, view));
    if (project === 'now') await this.projectNow(entry);
    return view;
  }

  /**
   * Writes a change of a room's players (creation, join, leave, deletion) to MongoDB right after
   * its append, so the next list or Play now sees it (guarded by the version, so the projector's
   * own write of it later changes nothing). Best effort: the change is committed, and the
   * projector writes it if this fails.
   */
  private async projectNow(entry: RoomLogEntry): Promise<void> {
    try {
      if (entry.deleted) await this.projector.remove([entry.room._id]);
      else await this.projector.write(entry.room);
    } catch (error) {
      this.logger.warn(
        { err: error, roomId: entry.room._id },
        'projecting a change at once failed; the projector will',
      );
    }
  }

  /**
   * Sends a committed change's live pushes to the gateways: right after the append, so a watcher
   * sees a move without waiting for the projector. Core NATS, fire and forget (room-push.ts says
   * what a lost one costs).
   */
  private push(pushes: readonly RoomPush[]): void {
    for (const { subject, meta, body } of pushes) {
      this.jetstream.broadcastText(subject, body, roomPushHeaders(meta));
    }
  }

  /** 503 while the room log or GAMES is full. */
  private assertCanLog(): void {
    this.jetstream.assertCanPublish(Streams.roomLog.name);
    this.jetstream.assertCanPublish(Streams.games.name);
  }

  /**
   * The room and its log sequence for a change or a GET; 404 when it is not there or gone, with
   * details { reason } while a closed room's tombstone stays (a client that missed the push learns why).
   */
  private async load(roomId: unknown): Promise<Pick<LoggedRoom, 'room' | 'seq'>> {
    if (typeof roomId !== 'string' || !ROOM_ID.test(roomId)) throw notFound();
    const logged = await this.log.last(roomId);
    if (logged) {
      if (logged.deleted) {
        throw new AppError('NOT_FOUND', ROOM_MESSAGES.notFound, { reason: logged.reason ?? 'deleted' });
      }
      return logged;
    }
    // No message for it: a room from before the room log (its first change appends expecting 0).
    const room = await this.repository.find(roomId);
    if (!room || room.tombstone) throw notFound();
    return { room, seq: 0 };
  }

  /** The room as it is now, or null when it is gone. */
  private async read(roomId: string): Promise<RoomRecord | null> {
    try {
      return (await this.load(roomId)).room;
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  /**
   * Takes the player's one membership for this room. A membership of another room is healed
   * when it is stale (that room is gone, or does not hold the player, and the membership is not
   * fresh); otherwise the player is in another room: 409.
   */
  private async takeMembership(playerId: string, roomId: string, at: Date): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await this.repository.claimMembership(playerId, roomId, at);
      if (result.claimed || result.existing.roomId === roomId) return;
      if (!(await this.healIfStale(playerId, result.existing))) break;
    }
    throw new AppError('CONFLICT', ROOM_MESSAGES.inAnotherRoom);
  }

  private async healIfStale(playerId: string, membership: { roomId: string; at: Date }): Promise<boolean> {
    if (Date.now() - new Date(membership.at).getTime() < MEMBERSHIP_SETTLE_MS) return false;
    const room = await this.read(membership.roomId);
    if (room && seatOf(room, playerId)) return false;
    await this.repository.releaseMemberships([playerId], membership.roomId);
    this.logger.warn({ playerId, roomId: membership.roomId }, 'healed a stale membership');
    return true;
  }
}

/** Whether the room's players changed (who, or how many). */
function playersChanged(before: RoomRecord, after: RoomRecord): boolean {
  return (
    before.playerCount !== after.playerCount || before.players.some((p, i) => p.id !== after.players[i]?.id)
  );
}

/** Whether lists and queries see the change (its players, a game started or ended): not coalesced. */
function isListed(before: RoomRecord, after: RoomRecord): boolean {
  return (
    playersChanged(before, after) ||
    before.gameStarted !== after.gameStarted ||
    before.gameOver !== after.gameOver
  );
}

/** Database writes of room changes made together, done after them (see leaveFinishedArenas). */
interface DeferredWrites {
  released: ArenaSeat[];
  projected: RoomLogEntry[];
  /** Whether the deletions among `projected` were written, once they are. */
  removed: Promise<boolean>;
}

const opened = (roomId: string): OpenArenaRoomResponse => ({ opened: true, roomId });

/** The answer a room's log gives a request to open it: refused (its busy players), or opened. */
const decided = (roomId: string, logged: Pick<LoggedRoom, 'refused'>): OpenArenaRoomResponse =>
  logged.refused ? { opened: false, busy: logged.refused } : opened(roomId);

/** An arena room with its first player seated, before the second joins it. */
function waitingArenaRoom(request: OpenArenaRoomRequest, roomNumber: number, now: number): RoomRecord {
  const { roomId, arenaId, players } = request;
  return {
    _id: roomId,
    name: `Room ${roomNumber}`,
    roomNumber,
    gameType: 'tournament',
    createdBy: players[0],
    duration: ARENA_TURN_SECONDS,
    passCode: '',
    players: [players[0]],
    playerCount: 1,
    gameStarted: false,
    gameOver: false,
    whosTurn: initialGameState(),
    version: 0,
    waitingSince: new Date(now),
    gameStartedAt: null,
    aiJoinAfter: null,
    arenaId,
    createdAt: new Date(now),
    updatedAt: new Date(now),
  };
}

/** Nobody is paired after an arena's end, even by a request that comes late. */
const ENDED: OpenArenaRoomResponse = { opened: false, busy: [], ended: true };

/** The rooms whose arena has ended at `nowMs`. */
const endedBy = (rooms: readonly OpenArenaRoomRequest[], nowMs: number): OpenArenaRoomRequest[] =>
  rooms.filter((r) => r.endsAt !== undefined && nowMs >= r.endsAt);

function callerId(caller: TokenClaims | undefined): string {
  if (typeof caller?.userId !== 'string' || caller.userId === '') {
    throw new AppError('UNAUTHORIZED', COMMON_MESSAGES.unauthorized);
  }
  return caller.userId;
}
