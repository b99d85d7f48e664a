import { T } from '../texts';
import styles from './Spinner.module.css';

/** A loading indicator that screen readers announce. */
export function Spinner({ label = T.loading, inline = false }: { label?: string; inline?: boolean }) {
  return (
    <div role="status" className={inline ? styles.inline : styles.block}>
      <span className={styles.sun} aria-hidden="true" />
      <span className={inline ? 'visually-hidden' : styles.label}>{label}</span>
    </div>
  );
}
