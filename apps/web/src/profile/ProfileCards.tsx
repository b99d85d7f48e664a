import type { RewardView } from '@oasis198/contracts';
import { CHAMPION_TITLES, LEVEL_STATUSES, premiumCategoryOf } from '@oasis198/game-rules';
import { T } from '../texts';
import styles from './Profile.module.css';

/** SPEC §2: name, played games, assets, premium category, champion titles, status and level. */
export function ProfileCards({ reward }: { reward: RewardView }) {
  const premium = premiumCategoryOf(reward.categories ?? {});
  const titles = CHAMPION_TITLES.filter((t) => reward.championStatus?.[t] === true);
  const status = LEVEL_STATUSES.find((s) => reward.levelStatus?.[s] === true);
  const cards: { label: string; value: string; id: string }[] = [
    { id: 'name', label: T.playerName, value: reward.playerName },
    { id: 'played', label: T.playedGames, value: String(reward.playedGames) },
    {
      id: 'assets',
      label: T.assets,
      value: T.assetsValue(reward.assets.points, reward.assets.coins),
    },
    { id: 'premium', label: T.premiumCategory, value: T.premiumLabels[premium] ?? premium },
    {
      id: 'titles',
      label: T.championTitles,
      value: titles.length ? titles.map((t) => T.championLabels[t] ?? t).join(', ') : T.noTitles,
    },
    {
      id: 'status',
      label: T.statusAndLevel,
      value: `${status ? (T.statusLabels[status] ?? status) : '—'} · ${T.level} ${reward.levelStatus?.level ?? 1}`,
    },
  ];
  return (
    <dl className={styles.cards}>
      {cards.map((card) => (
        <div key={card.id} className={styles.statCard}>
          <dt className={styles.statLabel}>{card.label}</dt>
          <dd className={styles.statValue}>{card.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function CoinPanel({ reward }: { reward: RewardView }) {
  return (
    <dl className={styles.coinPanel}>
      <div>
        <dt>{T.points}</dt>
        <dd>{reward.assets.points}</dd>
      </div>
      <div>
        <dt>{T.coins}</dt>
        <dd>{reward.assets.coins}</dd>
      </div>
    </dl>
  );
}
