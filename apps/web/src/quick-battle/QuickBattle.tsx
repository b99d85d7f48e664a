import { Link, Outlet } from 'react-router-dom';
import { useSession } from '../api';
import { RouteNotice } from '../components/RouteNotice';
import { T } from '../texts';
import styles from './QuickBattle.module.css';

/** /quick-battle: the parent of the quick-battle screens. */
export function QuickBattleLayout() {
  return <Outlet />;
}

/** Where a player lands in Quick Battle, and where the room screen sends them when a room cannot be fetched. */
export function QuickBattleHome() {
  const user = useSession();
  return (
    <div className="page">
      <section className={`card ${styles.hub}`} aria-labelledby="qb-title">
        <h1 id="qb-title">{T.quickBattle}</h1>
        <RouteNotice />
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
