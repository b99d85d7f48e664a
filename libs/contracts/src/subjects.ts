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
  },
  rewards: {
    get: 'rewards.get',
    list: 'rewards.list',
    create: 'rewards.create',
    edit: 'rewards.edit',
    delete: 'rewards.delete',
  },
  rooms: {
    create: 'rooms.create',
    list: 'rooms.list',
    get: 'rooms.get',
    mine: 'rooms.mine',
    edit: 'rooms.edit',
    delete: 'rooms.delete',
    /** Internal: the game timer asks rooms to apply a due deadline. */
    deadline: 'rooms.deadline',
  },
} as const;

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

/** JetStream streams. Services create them at start-up when missing (same config everywhere). */
export const Streams = {
  users: { name: 'USERS', subjects: ['user.>'] },
  games: { name: 'GAMES', subjects: ['room.>', 'game.>', 'move.>'] },
} as const;

/** Durable JetStream consumers: one per service and purpose, shared by that service's replicas. */
export const Consumers = {
  rewardsUsers: { stream: Streams.users.name, durable: 'rewards-users', filterSubjects: ['user.>'] },
  rewardsGames: {
    stream: Streams.games.name,
    durable: 'rewards-games',
    filterSubjects: [EventTypes.gameFinished],
  },
  timerRooms: {
    stream: Streams.games.name,
    durable: 'game-timer-rooms',
    filterSubjects: [EventTypes.roomCreated, EventTypes.roomUpdated, EventTypes.roomDeleted],
  },
} as const;

/** Core NATS broadcasts that every replica of a consumer receives (no queue group). */
export const Broadcasts = {
  /** Auth tells gateways to forget cached verifications of revoked tokens. */
  tokensRevoked: 'broadcast.auth.revoked',
} as const;

/** Queue groups for request/reply: replicas of one service share its subjects. */
export const QueueGroups = {
  auth: 'auth',
  rewards: 'rewards',
  rooms: 'rooms',
  gameTimer: 'game-timer',
} as const;

/** Carried from the browser request through every NATS hop and log line. */
export const REQUEST_ID_HEADER = 'x-request-id';
