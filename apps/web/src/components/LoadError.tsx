import { errorMessage } from '../api';
import { T } from '../texts';
import styles from './LoadError.module.css';

/** A read that failed: what went wrong, and a way to try again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div role="alert" className="alert">
      <p className={styles.message}>{errorMessage(error)}</p>
      <button type="button" className="btn btn-secondary" onClick={onRetry}>
        {T.retry}
      </button>
    </div>
  );
}
