import type { RewardView } from '@oasis198/contracts';
import { CHAMPION_TITLES, levelStatusFor, PREMIUM_CATEGORIES } from '@oasis198/game-rules';
import type { Reward } from './reward.schema';

/** The record as clients see it: SPEC §3's fields, levelStatus derived from the points. */
export function toRewardView(reward: Reward): RewardView {
  const points = reward.assets?.points ?? 0;
  return {
    playerId: reward._id,
    playerName: reward.playerName,
    playedGames: reward.playedGames ?? 0,
    wins: reward.wins ?? 0,
    assets: { points, coins: reward.assets?.coins ?? 0 },
    categories: flags(PREMIUM_CATEGORIES, reward.categories),
    championStatus: flags(CHAMPION_TITLES, reward.championStatus),
    levelStatus: levelStatusFor(points),
  };
}

function flags<K extends string>(keys: readonly K[], stored: Partial<Record<K, boolean>> | undefined) {
  return Object.fromEntries(keys.map((key) => [key, stored?.[key] === true])) as Record<K, boolean>;
}
