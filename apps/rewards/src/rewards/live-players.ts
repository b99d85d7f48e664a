import type { RewardsRepository } from './rewards.repository';

/**
 * Writes for each of a game's players who has not deleted their account, and never leaves a write
 * for one who has: the deletion marks are read once before the writes, and once more after them
 * for the players written, since another replica may handle a user.deleted in between; `undo`
 * then removes what was written. `write` says whether it wrote anything.
 */
export async function forLivePlayers<T extends { playerId: string }>(
  rewards: Pick<RewardsRepository, 'deletedAmong'>,
  items: readonly T[],
  write: (item: T) => Promise<boolean>,
  undo: (playerId: string) => Promise<unknown>,
): Promise<void> {
  const gone = await rewards.deletedAmong(items.map((item) => item.playerId));
  const written: string[] = [];
  for (const item of items) {
    if (!gone.has(item.playerId) && (await write(item))) written.push(item.playerId);
  }
  for (const playerId of await rewards.deletedAmong(written)) await undo(playerId);
}
