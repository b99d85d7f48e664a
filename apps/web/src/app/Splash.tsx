import { Link } from 'react-router-dom';
import { T } from '../texts';
import { Logo } from './Logo';
import styles from './Splash.module.css';
import { useUi } from './ui-state';

/** The brand splash (SPEC §1): hidden while the game menu is open. */
export function Splash() {
  const { ui } = useUi();
  if (ui.menuOpen) return null;
  return (
    <section className={styles.splash} aria-labelledby="splash-title">
      <Logo className={styles.logo} />
      <h1 id="splash-title" className={styles.title}>
        {T.product}
      </h1>
      <p className={styles.tagline}>{T.splashTagline}</p>
      <Link to="/" className="btn btn-big">
        {T.enter}
      </Link>
    </section>
  );
}
