import { T } from '../texts';
import styles from './Pager.module.css';

/** Previous / "Page n of m" / next, for a list of `pages` pages (shown once there is more than one). */
export function Pager({ page, pages, onGo }: { page: number; pages: number; onGo: (page: number) => void }) {
  if (pages <= 1 && page <= 1) return null;
  return (
    <nav className={styles.pager} aria-label="Pagination">
      <button
        type="button"
        className="btn btn-secondary"
        aria-label={T.previousPage}
        disabled={page <= 1}
        onClick={() => onGo(page - 1)}
      >
        <span aria-hidden="true">←</span>
      </button>
      <span aria-live="polite">{T.pageOf(Math.min(page, pages), pages)}</span>
      <button
        type="button"
        className="btn btn-secondary"
        aria-label={T.nextPage}
        disabled={page >= pages}
        onClick={() => onGo(page + 1)}
      >
        <span aria-hidden="true">→</span>
      </button>
    </nav>
  );
}
