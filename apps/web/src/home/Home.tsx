import { Link } from 'react-router-dom';
import { T } from '../texts';
import styles from './Home.module.css';

export function Home() {
  return (
    <div className={styles.home}>
      <section className={styles.hero} aria-labelledby="home-title">
        <h1 id="home-title">{T.homeTitle}</h1>
        <p>{T.homeIntro}</p>
        <div className={styles.actions}>
          <Link to="/quick-battle" className="btn btn-big">
            {T.quickBattle}
          </Link>
          <Link to="/tournaments" className="btn btn-big btn-warm">
            {T.tournaments}
          </Link>
        </div>
        <Link to="/leaderboard" className={styles.leaderboard}>
          {T.leaderboard}
        </Link>
      </section>
      <div className={styles.dunes} aria-hidden="true">
        <svg className={styles.sand} viewBox="0 0 400 120" preserveAspectRatio="none" focusable="false">
          <path d="M0 80 Q60 40 130 70 T260 60 T400 70 V120 H0Z" fill="#e9c88a" />
          <path d="M0 100 Q90 70 180 95 T400 90 V120 H0Z" fill="#c9a15f" />
        </svg>
        <svg className={styles.palm} viewBox="0 0 100 70" focusable="false">
          <ellipse cx="50" cy="62" rx="44" ry="7" fill="#1fa39a" />
          <path d="M50 60 V22" stroke="#6b4423" strokeWidth="4" strokeLinecap="round" />
          <path
            d="M50 22c-10-9-22-6-25 0 9-3 16-2 25 0zm0 0c10-9 22-6 25 0-9-3-16-2-25 0zm0 0c-3-11-12-15-18-12 7 2 12 6 18 12zm0 0c3-11 12-15 18-12-7 2-12 6-18 12z"
            fill="#2f7d4f"
          />
        </svg>
      </div>
    </div>
  );
}
