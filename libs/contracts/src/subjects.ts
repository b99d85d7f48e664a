/**
 * NATS subjects. Request/reply subjects (served by NestJS microservices in a queue group, so
 * replicas share the work) are plural nouns: auth.*, rewards.*, rooms.*. Durable events go
 * through JetStream on singular subjects (user.*, room.*, game.*, move.*), each published with a
 * msg-id so a retried publish is stored once.
 */
export const Requests = {
  auth: {
    register: 'auth.register',
    login: 'auth.login',
    verify: 'auth.verify',
    edit: 'auth.edit',
    logout: 'auth.logout',
    delete: 'auth.delete',
    /** Mails a password-reset link when the e-mail belongs to an account (DECISIONS "Forgotten password"). */
    forgotPassword: 'auth.forgot-password',
    resetPassword: 'auth.reset-password',
  },
  rewards: {
    get: 'rewards.get',
    list: 'rewards.list',
    create: 'rewards.create',
    edit: 'rewards.edit',
    delete: 'rewards.delete',
    /** A player's last games (the history read model). */
    games: 'rewards.games',
    /** One game of a player's history, with its moves (for Verify). */
    game: 'rewards.game',
    /** Internal: tournaments pays one place of an ended arena (ArenaPrizeRequest). */
    arenaPrize: 'rewards.arena-prize',
  },
  rooms: {
    create: 'rooms.create',
    list: 'rooms.list',
    get: 'rooms.get',
    mine: 'rooms.mine',
    /** Seats the caller in the oldest open room with a free spot, or opens one (Play now). */
    playNow: 'rooms.play-now',
    edit: 'rooms.edit',
    delete: 'rooms.delete',
    /** Internal: the game timer asks rooms to apply a due deadline. */
    deadline: 'rooms.deadline',
    /** Internal: tournaments opens an arena room with both players seated (OpenArenaRoomRequest). */
    openArena: 'rooms.open-arena',
  },
  tournaments: {
    /** An event's arena and standings (EventArenaRequest). */
    event: 'tournaments.event',
    join: 'tournaments.join',
    leave: 'tournaments.leave',
    /** The arena of an arena room, for its room screen. */
    room: 'tournaments.room',
  },
} as const;

/**
 * Event types, as their subjects. Rooms publishes only game.finished to GAMES now: room.created,
 * room.updated and room.deleted stay in its log entries for a rooms replica of the earlier release,
 * which also published game.started and move.made (watchers get every change as a live push on
 * core NATS, RoomPushSubjects). Their types and schemas stay while such messages may exist.
 */
export const EventTypes = {
  userRegistered: 'user.registered',
  userRenamed: 'user.renamed',
  userDeleted: 'user.deleted',
  roomCreated: 'room.created',
  roomUpdated: 'room.updated',
  roomDeleted: 'room.deleted',
  gameStarted: 'game.started',
  moveMade: 'move.made',
  gameFinished: 'game.finished',
} as const;
export type EventType = (typeof EventTypes)[keyof typeof EventTypes];

const MiB = 1024 * 1024;

/**
 * JetStream streams. Services create them at start-up when missing; the one service that
 * publishes to a stream (auth: USERS, rooms: GAMES) also keeps its limits up to date, from its
 * environment (USERS_STREAM_* / GAMES_STREAM_*; these are the defaults).
 *
 * Streams are bounded and discard NEW: a full stream refuses the next event (its publisher then
 * answers 503 to changes) and never drops a stored one that a consumer may not have read yet.
 * Together the defaults fit a 1 GiB JetStream file store (the chart's in-cluster NATS), as NATS
 * reserves each stream's max_bytes up front. Per-subject limits do not fit: subjects are event
 * types, not rooms or users, so a cap per subject would cap all rooms together.
 */
export const Streams = {
  users: {
    name: 'USERS',
    subjects: ['user.>'],
    maxBytes: 128 * MiB,
    /** User events carry an id and a name. */
    maxMsgSize: 16 * 1024,
  },
  /**
   * Interest retention: an event is kept until every durable consumer that takes it (rewards' two;
   * consumersOf) has acked it, and one that none takes is not stored: only game.finished is
   * published. Rooms creates those consumers before its first publish. With limits retention it
   * kept every event for 14 days, and filled its max_bytes about 5 minutes into a 500-game run;
   * now max_bytes is the backlog a stopped consumer may leave.
   */
  games: {
    name: 'GAMES',
    subjects: ['room.>', 'game.>', 'move.>'],
    retention: 'interest',
    /** What the 1 GiB store leaves once the room log, TIMERS, USERS and the buckets have theirs. */
    maxBytes: 448 * MiB,
    /** game.finished carries every move of the game (about 25 KiB at the 250-move limit). */
    maxMsgSize: 256 * 1024,
  },
  /**
   * The rooms' deadlines as JetStream message schedules (ADR-51): one schedule per room on
   * timer.schedules.<roomId>, written by rooms with each room change (a newer one replaces it;
   * max one message per subject), which the server publishes to timer.fired.<roomId> in this
   * stream when due, for the game timer. Work-queue retention: a
   * fired deadline is removed once the timer has acked it. The server refuses discard NEW on a
   * stream with schedules, so this one discards OLD, and a schedule dropped to make room is a lost
   * deadline: maxBytes is sized far above what one message per room with a pending deadline takes
   * (about 0.5 KiB each: some 200,000 rooms, twice the 100,000 the timer bench holds), and fits the
   * 1 GiB file store with the other streams and auth's token bucket (64 MiB).
   */
  timers: {
    name: 'TIMERS',
    subjects: ['timer.schedules.>', 'timer.fired.>'],
    maxBytes: 96 * MiB,
    /** A schedule carries one room's few deadlines. */
    maxMsgSize: 16 * 1024,
    maxMsgsPerSubject: 1,
  },
  /**
   * The room log: the commit point of every room change (docs/architecture.md, "A room change").
   * One subject per room, roomlog.<roomId>; each change appends ONE message with the room as it
   * is after the change and the change's events, guarded by the subject's expected last sequence
   * (the per-room lock). Rooms projects it into MongoDB and publishes its events to GAMES, then
   * purges a room's older messages; the last message of a room is its truth and is kept (no
   * max age). Discard NEW like the others: a change that cannot be logged is not made (503).
   */
  roomLog: {
    name: 'ROOMLOG',
    subjects: ['roomlog.>'],
    maxBytes: 256 * MiB,
    /** A room (up to about 25 KiB at the 250-move limit) plus its change's events (one more room). */
    maxMsgSize: 256 * 1024,
    /** A room's last message is its state: it never ages out. */
    maxAgeMs: 0,
  },
} as const;

/** The room log's subjects; a room id is one subject token. */
export const RoomLogSubjects = {
  room: (roomId: string) => `roomlog.${roomId}`,
} as const;

/** Headers of room log messages. */
export const RoomLogHeaders = {
  /** On a deleted room's last message (its tombstone): why the room was closed. */
  closed: 'Oasis-Room-Closed',
} as const;

/** The game timer's subjects in the TIMERS stream; a room id is one subject token. */
export const TimerSubjects = {
  /** Holds the room's next deadline as a message schedule; its identity is the room. */
  schedule: (roomId: string) => `timer.schedules.${roomId}`,
  /** Where the server publishes the room's schedule when it falls due. */
  fired: (roomId: string) => `timer.fired.${roomId}`,
} as const;

/** Durable JetStream consumers: one per service and purpose, shared by that service's replicas. */
export const Consumers = {
  rewardsUsers: { stream: Streams.users.name, durable: 'rewards-users', filterSubjects: ['user.>'] },
  rewardsGames: {
    stream: Streams.games.name,
    durable: 'rewards-games',
    filterSubjects: [EventTypes.gameFinished],
  },
  /**
   * The game history read model, from game.finished alone: it carries the result, the move list
   * and the revealed AI seed together.
   */
  rewardsHistory: {
    stream: Streams.games.name,
    durable: 'rewards-history',
    filterSubjects: [EventTypes.gameFinished],
  },
  /** An account deleted while it plays leaves its room (the rooms replicas together). */
  roomsUsers: {
    stream: Streams.users.name,
    durable: 'rooms-users',
    filterSubjects: [EventTypes.userDeleted],
  },
  /**
   * The room log, projected into MongoDB and published to GAMES by the rooms replicas together.
   * Up to 20,000 unacked: those in hand, and those whose room write is queued behind another.
   */
  roomsProjector: {
    stream: Streams.roomLog.name,
    durable: 'rooms-projector',
    filterSubjects: ['roomlog.>'],
    maxAckPending: 20_000,
  },
  /**
   * Arena games' results, scored by the tournaments replicas together (rooms it did not open are
   * skipped). A result held by a replica that died comes again after 10 s: until it is scored,
   * its players wait for their next pairing.
   */
  tournamentsGames: {
    stream: Streams.games.name,
    durable: 'tournaments-games',
    filterSubjects: [EventTypes.gameFinished],
    ackWaitS: 10,
  },
  /**
   * Fired deadlines, shared by the timer's replicas: each one goes to one replica until acked,
   * and is never dropped (retried until rooms has answered it). Those handed back until due stay
   * pending meanwhile: room for a burst. The timer sets the ack wait from its RPC timeout.
   */
  timerFired: {
    stream: Streams.timers.name,
    durable: 'game-timer-fired',
    filterSubjects: ['timer.fired.>'],
    maxAckPending: 20_000,
    maxDeliver: -1,
  },
} as const;

/** The durable consumers that read a stream: those of GAMES are created by rooms, its publisher, too. */
export const consumersOf = (stream: string): Array<(typeof Consumers)[keyof typeof Consumers]> =>
  Object.values(Consumers).filter((consumer) => consumer.stream === stream);

/**
 * Durable consumers that earlier releases created and no service reads any more. The stream's
 * publisher deletes them at start-up: on an interest stream, one left behind would keep every
 * event it takes until the stream is full. The game timer read room events here until rooms
 * wrote the schedules itself (docs/adr/0008-game-timer-on-message-schedules.md).
 */
export const RetiredConsumers = [{ stream: Streams.games.name, durable: 'game-timer-rooms' }] as const;

/**
 * JetStream key-value buckets (stream KV_<bucket>, subjects $KV.<bucket>.>). `limits` holds the
 * counting limits that every gateway replica and rooms share (logins, passcodes, per-user writes).
 * `tokens` holds what a token's signature cannot say (logouts, deleted users, password changes,
 * renames): auth writes it, every gateway replica watches it (TokenRecords in users.ts). Their
 * default sizes, limits 16 MiB (LIMITS_BUCKET_MAX_BYTES) and tokens 64 MiB, fit the 1 GiB store
 * beside the streams' 928 MiB.
 */
export const KvBuckets = {
  limits: 'oasis-limits',
  tokens: 'oasis-tokens',
} as const;

/**
 * The largest value each bucket takes (its stream's max_msg_size, the write's headers included),
 * whichever service creates or opens it: a limit's window (`{"c":10,"e":1764636000000}`), and a
 * user's token record with up to 1,000 logouts (about 70 KiB).
 */
export const KvBucketMaxValueSize: Record<(typeof KvBuckets)[keyof typeof KvBuckets], number> = {
  [KvBuckets.limits]: 512,
  [KvBuckets.tokens]: 128 * 1024,
};

/**
 * Core NATS subjects outside every stream: broadcasts whose loss costs nothing (a client that
 * misses one refetches when its stream reopens), so they are not stored.
 */
export const Broadcasts = {
  /** rewards, after paying a game: leaderboards may have changed (LeaderboardChanged). */
  leaderboardChanged: 'leaderboard.changed',
  /** tournaments, after an event's arena changed (a join, a leave, a score, its end): arenaChangedSubject. */
  arenaChanged: 'arena.changed.*',
} as const;

/** The arena broadcast of one event; the event id is the last token. */
export const arenaChangedSubject = (eventId: string): string => `arena.changed.${eventId}`;

/** Queue groups for request/reply: replicas of one service share its subjects. */
export const QueueGroups = {
  auth: 'auth',
  rewards: 'rewards',
  rooms: 'rooms',
  gameTimer: 'game-timer',
  tournaments: 'tournaments',
} as const;

/** Carried from the browser request through every NATS hop and log line. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * When the caller stops waiting for a request's answer, in epoch milliseconds. A service does not
 * start a request whose caller has already given up (and answered the browser 503), so a request
 * that waited out a stalled replica changes nothing when the replica wakes.
 */
export const REQUEST_DEADLINE_HEADER = 'x-request-deadline';
