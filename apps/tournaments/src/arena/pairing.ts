/** A joined player who is in no game, as pairing sees them. */
export interface FreePlayer {
  playerId: string;
  /** Whom they played last in this arena. */
  lastOpponent: string | null;
  /** Since when they wait (ms); who waits longest is paired first. */
  freeSince: number;
}

const rematch = (a: FreePlayer, b: FreePlayer): boolean =>
  a.lastOpponent === b.playerId || b.lastOpponent === a.playerId;

/**
 * Pairs free players, longest waiting first, each with the longest waiting one they did not just
 * play. Two players who just played each other meet again only when nobody else is free.
 */
export function pairFree(players: readonly FreePlayer[]): Array<[string, string]> {
  const unique = [...new Map(players.map((p) => [p.playerId, p])).values()];
  const waiting = unique.sort((a, b) => a.freeSince - b.freeSince || a.playerId.localeCompare(b.playerId));
  const [first, second] = waiting;
  if (waiting.length === 2 && first && second) return [[first.playerId, second.playerId]];
  const paired = new Set<string>();
  const pairs: Array<[string, string]> = [];
  for (const [i, player] of waiting.entries()) {
    if (paired.has(player.playerId)) continue;
    const opponent = waiting.find(
      (other, j) => j > i && !paired.has(other.playerId) && !rematch(player, other),
    );
    if (!opponent) continue;
    paired.add(player.playerId).add(opponent.playerId);
    pairs.push([player.playerId, opponent.playerId]);
  }
  return pairs;
}

/**
 * The free players whose opening is not in hand (`inHand`: their entrant ids): a player being
 * seated may still read as free until their claim is written.
 */
export function notInHand<T extends { _id: string }>(free: readonly T[], inHand: ReadonlySet<string>): T[] {
  return free.filter((e) => !inHand.has(e._id));
}

/**
 * How long one player waited for the room just opened, in seconds: from when they were free, or
 * from the arena's start when they joined before it; null when their wait had not begun.
 */
export function pairingWait(freeSince: number, startsAt: number, openedAt: number): number | null {
  const from = Math.max(freeSince, startsAt);
  return from <= openedAt ? (openedAt - from) / 1000 : null;
}
