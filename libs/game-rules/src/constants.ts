/** Business constants of SPEC §9 and DECISIONS.md. Times are in seconds unless the name says otherwise. */

export const WINNING_TOTAL = 198;
export const PICK_MIN = 1;
export const PICK_MAX = 9;
export const MILESTONES = [73, 161, 198] as const;
export type Milestone = (typeof MILESTONES)[number];
export const MAX_PLAYERS = 2;

/** Oasis tiers start at these totals: 0-72, 73-160, 161-197; 198 or more has none. */
export const OASIS_TIER_CUTOFFS = [73, 161] as const;
export const OASIS_START_USES = 3;

/** A game nobody has won ends as a draw after this many moves (DECISIONS.md "Fair play"). */
export const MOVE_LIMIT = 250;
/** Every game's AI numbers derive from a fresh secret seed of this many bytes. */
export const AI_SEED_BYTES = 32;

export const SPECIAL_RANDOM_MIN = 100_000;
export const SPECIAL_RANDOM_MAX = 999_999;

export const TURN_DURATIONS = [14, 32, 60, 300] as const;
export type TurnDuration = (typeof TURN_DURATIONS)[number];
export const DEFAULT_TURN_DURATION: TurnDuration = 32;

/** deadline = turnStart + duration + TURN_GRACE. */
export const TURN_GRACE = 4;
/** A move is refused, and the turn times out, once now > deadline + LATE_TOLERANCE. */
export const LATE_TOLERANCE = 1;
/** Display only: the timer reads 'Weak' below this many seconds. */
export const WEAK_BELOW = -6;
/** A room whose turn was neither played nor timed out is deleted this long after its deadline. */
export const ABANDONED_AFTER = 60;

/** After game over both players have this long to press Play Again. */
export const READY_WINDOW = 50;
/** Extra grace after the ready window before the room is deleted (50 s + 14 s = 64 s). */
export const READY_GRACE = 14;
export const POST_GAME_EXPIRY = READY_WINDOW + READY_GRACE;
/** A room with one player that gets no opponent within this long is deleted. */
export const WAITING_ROOM_EXPIRY = 600;

export const ROOM_PAGE_SIZE = 8;
export const GAME_TYPES = ['quick-battle', 'tournament'] as const;
export type GameType = (typeof GAME_TYPES)[number];
export const PASSCODE_MAX_LENGTH = 4;

/** SPEC's time base: turnStart counts seconds since 2022-11-17T00:00:00Z. */
export const TIME_BASE_MS = Date.UTC(2022, 10, 17);
