import type { RewardView } from '@oasis198/contracts';
import { useId, useRef, type KeyboardEvent } from 'react';
import { useUi, type AvatarTab } from '../app/ui-state';
import { T } from '../texts';
import { EditPanel } from './EditPanel';
import styles from './Profile.module.css';
import { CoinPanel } from './ProfileCards';

const TABS: { id: AvatarTab; label: string }[] = [
  { id: 'coin', label: T.coinTab },
  { id: 'edit', label: T.editTab },
];

/** The Coin and Edit panels (SPEC §2) as tabs; the arrow keys move between them. */
export function ProfileTabs({ reward }: { reward: RewardView }) {
  const { ui, dispatch } = useUi();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const baseId = useId();
  const panelId = `${baseId}-panel`;

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    event.preventDefault();
    const next = (index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length;
    dispatch({ type: 'avatarTab', tab: (TABS[next] as (typeof TABS)[number]).id });
    tabRefs.current[next]?.focus();
  };

  return (
    <div className={`card ${styles.panels}`}>
      <div role="tablist" aria-label={T.profileTabs} className={styles.tabs}>
        {TABS.map((tab, i) => (
          <button
            key={tab.id}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            id={`${baseId}-${tab.id}`}
            type="button"
            role="tab"
            aria-selected={ui.avatarTab === tab.id}
            aria-controls={panelId}
            tabIndex={ui.avatarTab === tab.id ? 0 : -1}
            className={styles.tab}
            onClick={() => dispatch({ type: 'avatarTab', tab: tab.id })}
            onKeyDown={(event) => onTabKey(event, i)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div id={panelId} role="tabpanel" aria-labelledby={`${baseId}-${ui.avatarTab}`}>
        {ui.avatarTab === 'coin' ? (
          <CoinPanel reward={reward} />
        ) : (
          <EditPanel onDelete={() => dispatch({ type: 'deleteWindow', open: true })} />
        )}
      </div>
    </div>
  );
}
