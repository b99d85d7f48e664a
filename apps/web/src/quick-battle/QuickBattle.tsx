import { Link, Outlet, useLocation } from 'react-router-dom';
import { useSession } from '../api';
import { T } from '../texts';
import styles from './QuickBattle.module.css';

/** /quick-battle: the parent of the quick-battle screens. */
export function QuickBattleLayout() {
  return <Outlet />;
}

/** Where a player lands in Quick Battle, and where the room screen sends them when a room is gone. */
export function QuickBattleHome() {
  const location = useLocation();
  const user = useSession();
  const notice = (location.state as { notice?: unknown } | null)?.notice;
  return (
    <div className="page">
      <section className={`card ${styles.hub}`} aria-labelledby="qb-title">
        <h1 id="qb-title">{T.quickBattle}</h1>
        {typeof notice === 'string' ? (
          <p role="status" className="notice">
            {notice}
          </p>
        ) : null}
        <p>{T.quickBattleIntro}</p>
        <div className={styles.hubActions}>
          <Link to="/quick-battle/rooms" className="btn btn-big">
            {T.findRoom}
          </Link>
          <Link to="/quick-battle/create" className="btn btn-big btn-warm">
            {T.createRoom}
          </Link>
        </div>
        {user ? null : <p className={styles.muted}>{T.visitorIntro}</p>}
      </section>
    </div>
  );
}
