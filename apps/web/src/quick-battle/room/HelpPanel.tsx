import type { OasisCounts } from '@oasis198/game-rules';
import { useUi } from '../../app/ui-state';
import { T } from '../../texts';
import styles from './Room.module.css';

const COUNTERS = ['double', 'added', 'extra', 'bonus', 'minus', 'matched'] as const;

/**
 * SPEC §2's help panel: the counters double, added, extra, bonus, minus and matched, with the
 * chosen help type's name in upper case ('PLUS' until a counter is chosen) and what it does.
 */
export function HelpPanel({ counts, onClose }: { counts: OasisCounts; onClose: () => void }) {
  const { ui, dispatch } = useUi();
  const type = ui.helpType;
  return (
    <aside className={styles.help} aria-labelledby="help-title">
      <div className={styles.helpHead}>
        <h3 id="help-title">{type.toUpperCase()}</h3>
        <button type="button" className="icon-btn" aria-label={T.closeHelp} onClick={onClose}>
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      <p>{T.helpExplain[type] ?? T.helpExplain.plus}</p>
      <ul className={styles.helpCounters} aria-label={T.helpCounters}>
        {COUNTERS.map((counter) => (
          <li key={counter}>
            <button
              type="button"
              aria-pressed={type === counter}
              onClick={() => dispatch({ type: 'helpType', helpType: type === counter ? 'plus' : counter })}
            >
              <span>{counter}</span> <strong>{counts[counter]}</strong>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
