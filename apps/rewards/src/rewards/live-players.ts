import type { RewardsRepository } from './rewards.repository';

/**
 * Writes for the players of a batch of games who have not deleted their account, all at once, and never
 * leaves a write for one who has: the deletion marks are read once before the write, and once
 * more after it for the players written, since another replica may handle a user.deleted in
 * between; `undo` then removes what was written. `write` gets the live players' items and answers
 * whose it wrote.
 */
export async function forLivePlayers<T extends { playerId: string }>(
  rewards: Pick<RewardsRepository, 'deletedAmong'>,
  items: readonly T[],
  write: (live: readonly T[]) => Promise<readonly string[]>,
  undo: (playerId: string) => Promise<unknown>,
): Promise<void> {
  const gone = await rewards.deletedAmong(items.map((item) => item.playerId));
  const live = items.filter((item) => !gone.has(item.playerId));
  if (live.length === 0) return;
  const written = await write(live);
  for (const playerId of await rewards.deletedAmong(written)) await undo(playerId);
}
