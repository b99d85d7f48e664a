import { Link } from 'react-router-dom';
import { useWindowHeight } from '../components/hooks';
import { T } from '../texts';
import { Logo } from './Logo';
import styles from './Header.module.css';
import { useUi } from './ui-state';

/** SPEC §2: the menu button sits on the left when the window is under 751 px high, else on the right. */
export const MENU_HEIGHT_BREAKPOINT = 751;

export function menuSide(height: number): 'left' | 'right' {
  return height < MENU_HEIGHT_BREAKPOINT ? 'left' : 'right';
}

export const GAME_MENU_ID = 'game-menu';

function MenuButton() {
  const { ui, dispatch } = useUi();
  return (
    <button
      type="button"
      className={styles.menuButton}
      aria-label={T.gameMenu}
      aria-expanded={ui.menuOpen}
      aria-controls={GAME_MENU_ID}
      onClick={() => dispatch({ type: 'toggleMenu' })}
    >
      <span className={styles.bars} aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
    </button>
  );
}

export function Header() {
  const side = menuSide(useWindowHeight());
  return (
    <header className={styles.header} data-menu-side={side}>
      {side === 'left' ? <MenuButton /> : null}
      <Link to="/" className={styles.brand} title={T.home}>
        <Logo className={styles.logo} title={T.home} />
        <span className={styles.name}>{T.product}</span>
      </Link>
      {side === 'right' ? <MenuButton /> : null}
    </header>
  );
}
