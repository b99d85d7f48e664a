import type { OpenArenaRoomResponse } from '@oasis198/contracts';
import type { PairingDoc } from './arena.repository';

/** A seat to give back: the player leaves the pairing's room, and waits from `notBefore`. */
export interface SeatRelease {
  arenaId: string;
  roomId: string;
  playerId: string;
  notBefore: number;
}

/** The items in batches of `size` at most, in order. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/**
 * After the claims of a batch (`seated`: how many of each pairing's players sit in its room): the
 * pairings with both seated go to rooms; the others were taken by another pairing, and whoever
 * was seated in them waits on from when they were free (`freeSince`, by player).
 */
export function planClaims(
  pairings: readonly PairingDoc[],
  seated: ReadonlyMap<string, number>,
  freeSince: (playerId: string) => number,
): { claimed: PairingDoc[]; taken: PairingDoc[]; release: SeatRelease[] } {
  const claimed: PairingDoc[] = [];
  const taken: PairingDoc[] = [];
  const release: SeatRelease[] = [];
  for (const pairing of pairings) {
    const count = seated.get(pairing._id) ?? 0;
    if (count >= pairing.players.length) {
      claimed.push(pairing);
      continue;
    }
    taken.push(pairing);
    // Which one of them sits is not known here: the release is guarded by the room, so a seat
    // that is another pairing's stays.
    if (count > 0) release.push(...seatsOf(pairing, (playerId) => freeSince(playerId)));
  }
  return { claimed, taken, release };
}

/**
 * Rooms' answers to a batch, by room: the pairings opened; the ones refused because a player is
 * busy in another room, or because the arena ended first; the refused ones' seats are given back
 * (the busy players' after `busyRetryMs`). A pairing rooms did not answer for stays as it is
 * (resumed later).
 */
export function planAnswers(
  pairings: readonly PairingDoc[],
  answers: readonly (OpenArenaRoomResponse | undefined)[],
  nowMs: number,
  busyRetryMs: number,
): { opened: PairingDoc[]; busy: PairingDoc[]; ended: PairingDoc[]; release: SeatRelease[] } {
  const opened: PairingDoc[] = [];
  const busy: PairingDoc[] = [];
  const ended: PairingDoc[] = [];
  const release: SeatRelease[] = [];
  for (const [i, pairing] of pairings.entries()) {
    const answer = answers[i];
    if (!answer) continue;
    if (answer.opened) {
      opened.push(pairing);
      continue;
    }
    (answer.ended ? ended : busy).push(pairing);
    release.push(
      ...seatsOf(pairing, (playerId) => (answer.busy.includes(playerId) ? nowMs + busyRetryMs : nowMs)),
    );
  }
  return { opened, busy, ended, release };
}

/** The pairing's seats, each player waiting from `notBefore(playerId)`. */
export const seatsOf = (
  pairing: Pick<PairingDoc, '_id' | 'arenaId' | 'players'>,
  notBefore: (playerId: string) => number,
): SeatRelease[] =>
  pairing.players.map((p) => ({
    arenaId: pairing.arenaId,
    roomId: pairing._id,
    playerId: p.id,
    notBefore: notBefore(p.id),
  }));
