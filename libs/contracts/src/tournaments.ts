import { z } from 'zod';
import { type Person, personSchema } from './events';
import { idSchema } from './schema';
import type { TokenClaims } from './users';

/**
 * Event cup arenas (DECISIONS.md "Event cup arenas"): SPEC's events 1 to 10, of which event-2,
 * event-6 and event-9 run arenas. An arena is `<eventId>:<startsAt ms>`.
 */
export const ARENA_EVENTS = ['event-2', 'event-6', 'event-9'] as const;
export type ArenaEventId = (typeof ARENA_EVENTS)[number];
export const isArenaEvent = (id: unknown): id is ArenaEventId =>
  typeof id === 'string' && (ARENA_EVENTS as readonly string[]).includes(id);

/** An arena's id: `<eventId>:<startsAt ms>`. */
export const arenaIdOf = (eventId: string, startsAt: number): string => `${eventId}:${startsAt}`;
/** The event whose arena `arenaId` is (arenaIdOf's first part). */
export const eventOfArena = (arenaId: string): string => arenaId.split(':')[0] ?? '';

/** 'event-6' → 'Event 6': the name SPEC's event list shows. */
export const arenaEventName = (eventId: string): string => eventId.replace(/^event-(\d+)$/, 'Event $1');

/** The event page's live stream: event type `arena` (an ArenaPush); standings at most once a second per event. */
export const ARENA_PUSH_EVENT = 'arena';
export const ARENA_PUSH_INTERVAL_MS = 1000;

/** The tournaments routes of the gateway, as the web app calls them. */
export const ArenaPaths = {
  event: (eventId: string) => `/api/tournaments/events/${encodeURIComponent(eventId)}`,
  mine: (eventId: string) => `/api/tournaments/events/${encodeURIComponent(eventId)}/me`,
  join: (eventId: string) => `/api/tournaments/events/${encodeURIComponent(eventId)}/join`,
  leave: (eventId: string) => `/api/tournaments/events/${encodeURIComponent(eventId)}/leave`,
  /** `player` (the logged-in caller) gets frames marked `mine` when their own entry changes. */
  stream: (eventId: string, player?: string) =>
    `/api/tournaments/events/${encodeURIComponent(eventId)}/stream` +
    (player ? `?player=${encodeURIComponent(player)}` : ''),
  room: (roomId: string) => `/api/tournaments/rooms/${encodeURIComponent(roomId)}`,
} as const;

/** Arena rooms' turn duration in seconds. */
export const ARENA_TURN_SECONDS = 14;

/** Score per game (DECISIONS): win 2, draw 1, loss 0; an aborted game 0 for both. */
export const ARENA_SCORE = { win: 2, draw: 1, loss: 0, aborted: 0 } as const;
export type ArenaOutcome = keyof typeof ARENA_SCORE;

/** What the first three get when an arena ends, once each. */
export const ARENA_PRIZES = [
  { place: 1, coins: 100, title: 'eventsWinner' },
  { place: 2, coins: 50, title: null },
  { place: 3, coins: 25, title: null },
] as const;

export const ARENA_MESSAGES = {
  unknownEvent: 'There is no such event.',
  unavailable: 'The Cup is currently unavailable',
  notRunning: 'This arena has ended. Join the next one.',
  notJoined: 'You have not joined this arena.',
  samePlayer: 'An arena room needs two different players.',
  playerInTwoRooms: 'A player is in one arena room of a batch at most.',
  roomTwice: 'An arena room is in a batch once.',
  roomsByArena: 'Tournament rooms are opened by the Event cup arenas: join an event to play.',
  playedOnce: 'An arena game is played once: the arena pairs you again when it ends.',
} as const;

/** One line of the standings: ranked by score, then wins, then who reached the score first. */
export const arenaStandingSchema = z.object({
  rank: z.int().min(1),
  playerId: idSchema,
  name: z.string(),
  score: z.int().min(0),
  wins: z.int().min(0),
  games: z.int().min(0),
});
export type ArenaStanding = z.infer<typeof arenaStandingSchema>;

export const ARENA_STATUSES = ['upcoming', 'running', 'ended'] as const;
export type ArenaStatus = (typeof ARENA_STATUSES)[number];

export const arenaViewSchema = z.object({
  arenaId: z.string(),
  eventId: z.enum(ARENA_EVENTS),
  name: z.string(),
  /** ISO 8601. */
  startsAt: z.string(),
  endsAt: z.string(),
  status: z.enum(ARENA_STATUSES),
  standings: z.array(arenaStandingSchema),
});
export type ArenaView = z.infer<typeof arenaViewSchema>;

/**
 * GET /api/tournaments/events/{eventId}: the arena that is running or next, and while none runs,
 * the last one's final standings. `arena` is null when the event runs no arenas (unavailable).
 * `joined` says whether the caller (when logged in) is in the running or next arena.
 */
export const eventArenaResponseSchema = z.object({
  eventId: z.string(),
  name: z.string(),
  arena: arenaViewSchema.nullable(),
  previous: arenaViewSchema.nullable(),
  joined: z.boolean(),
  /** The caller's arena room while they play one. */
  roomId: z.string().nullable(),
});
export type EventArenaResponse = z.infer<typeof eventArenaResponseSchema>;

/**
 * A frame of the event page's stream (GET .../events/{eventId}/stream?player={id}): the event as
 * anyone sees it (joined false, roomId null), read once by the gateway for all its watchers, so a
 * page need not refetch it; `mine` when the named player's own entry changed (joined, left, seated
 * in a room, freed by a game over): with `roomId` when they were seated in that room (the page goes
 * there without a refetch; rooms and their players are public), else the page refetches .../me. A
 * frame without `event` or `mine` (the gateway could not read the event) means: refetch.
 */
export const arenaPushSchema = z.object({
  event: eventArenaResponseSchema.optional(),
  mine: z.literal(true).optional(),
  roomId: z.string().optional(),
});
export type ArenaPush = z.infer<typeof arenaPushSchema>;

/** The event stream's query: the player whose page it is, told when their own entry changed. */
export const arenaStreamQuerySchema = z.strictObject({
  player: idSchema
    .optional()
    .describe('The id of the player whose page this is (public, as in the standings).'),
});
export type ArenaStreamQuery = z.infer<typeof arenaStreamQuerySchema>;

/**
 * What tournaments broadcasts when an event's arena changed: the players whose own entry changed;
 * `freed` when a game's score freed them (the replica holding the pairing lease pairs them);
 * `seated` when only their seats changed (rooms opened), not the standings, with each seated
 * player's new room (`seats`: player id → room id). Core NATS among the services: the browsers'
 * frames carry only a player's own room.
 */
export interface ArenaChanged {
  eventId: string;
  players?: string[];
  freed?: boolean;
  seated?: boolean;
  seats?: Record<string, string>;
}

/** GET /api/tournaments/rooms/{roomId}: the arena of an arena room, for its room screen. */
export const arenaRoomResponseSchema = z.object({
  roomId: z.string(),
  arenaId: z.string(),
  eventId: z.enum(ARENA_EVENTS),
  name: z.string(),
  endsAt: z.string(),
  /** Each player of the room with their arena score now. */
  players: z.array(z.object({ playerId: idSchema, name: z.string(), score: z.int().min(0), rank: z.int() })),
});
export type ArenaRoomResponse = z.infer<typeof arenaRoomResponseSchema>;

// NATS requests to the tournaments service.
export interface EventArenaRequest {
  eventId: string;
  caller?: TokenClaims;
}
export interface JoinArenaRequest {
  eventId: string;
  caller: TokenClaims;
}
export interface ArenaRoomRequest {
  roomId: string;
}

/**
 * rooms.open-arena (tournaments → rooms): opens arena rooms, each `roomId` (24 hex characters,
 * chosen by tournaments for the pairing) with both players seated and its game started. The same
 * roomId never opens twice, so a retry after a lost answer or a crash opens nothing more. The
 * request is a batch (`rooms`, a player in one room of it at most), answered room by room in its
 * order; a single room's request (no `rooms`) is a batch of one, answered as one room.
 */
export const openArenaRoomRequestSchema = z.object({
  roomId: z.string().regex(/^[0-9a-f]{24}$/),
  arenaId: z.string().min(1).max(100),
  players: z.tuple([personSchema, personSchema]),
  /** The arena's end (ms since the epoch): a room not opened by then is not opened at all. */
  endsAt: z.int().positive().optional(),
});
export type OpenArenaRoomRequest = {
  roomId: string;
  arenaId: string;
  players: [Person, Person];
  endsAt?: number;
};
/**
 * Not opened: `busy` names the players who play in another room; `ended` says the arena's end
 * came first (nobody is paired after it).
 */
export type OpenArenaRoomResponse =
  { opened: true; roomId: string } | { opened: false; busy: string[]; ended?: true };

/**
 * Arena rooms one rooms.open-arena request opens at most: their seats (two a room) stay under 100,
 * the statements of one write and the ids of one `_id` list that FerretDB v1 takes (ADR 0023).
 */
export const ARENA_ROOMS_PER_REQUEST = 49;
export const openArenaRoomsRequestSchema = z.object({
  rooms: z.array(openArenaRoomRequestSchema).min(1).max(ARENA_ROOMS_PER_REQUEST),
});
export type OpenArenaRoomsRequest = { rooms: OpenArenaRoomRequest[] };
/** One answer per room of the request, in its order. */
export type OpenArenaRoomsResponse = { rooms: OpenArenaRoomResponse[] };

/**
 * rewards.arena-prize (tournaments → rewards): pays one place of an ended arena, once (the prize
 * is keyed `arena:<arenaId>:<place>` in the player's paid games).
 */
export const arenaPrizeRequestSchema = z.object({
  arenaId: z.string().min(1).max(100),
  place: z.int().min(1).max(3),
  playerId: idSchema,
  playerName: z.string(),
});
export type ArenaPrizeRequest = z.infer<typeof arenaPrizeRequestSchema>;
export interface ArenaPrizeResponse {
  outcome: 'paid' | 'already-paid' | 'deleted';
}

/** Key of an arena prize among a player's paid games. */
export const arenaPrizeId = (arenaId: string, place: number): string => `arena:${arenaId}:${place}`;
