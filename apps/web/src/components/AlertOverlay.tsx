import styles from './AlertOverlay.module.css';

/**
 * A message over the whole screen, announced at once (role alert): SPEC §4's 2.5 s 'Game already
 * started' overlay, with an optional line saying why. Whoever shows it takes it away.
 */
export function AlertOverlay({ text, detail }: { text: string; detail?: string }) {
  return (
    <div className={styles.overlay} role="alert">
      <div className={styles.card}>
        <p>{text}</p>
        {detail ? <p className={styles.detail}>{detail}</p> : null}
      </div>
    </div>
  );
}
