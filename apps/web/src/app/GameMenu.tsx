import { useId, useRef, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import { useSession } from '../api';
import { Dialog } from '../components/Dialog';
import { useWindowHeight } from '../components/hooks';
import { T } from '../texts';
import { GAME_MENU_ID, menuSide } from './Header';
import { AboutUs, ContactUs, HowToPlay } from './HelpTexts';
import styles from './GameMenu.module.css';
import { useUi, type MenuTab } from './ui-state';

const TABS: readonly MenuTab[] = [T.menuTabs.howToPlay, T.menuTabs.aboutUs];
/** The menu's places, in order; the last one is the profile, or the login for a visitor. */
const PLACES: readonly { to: string; label: string }[] = [
  { to: '/', label: T.home },
  { to: '/quick-battle', label: T.quickBattle },
  { to: '/tournaments', label: T.tournaments },
  { to: '/leaderboard', label: T.leaderboard },
];
const PROFILE = { to: '/profile', label: T.profile };
const LOGIN = { to: '/login', label: T.login };

/** The slide-in game menu: where to go, and the HOW TO PLAY / ABOUT US tabs (SPEC §1, §2). */
export function GameMenu() {
  const { ui, dispatch } = useUi();
  const user = useSession();
  const side = menuSide(useWindowHeight());
  const closeRef = useRef<HTMLButtonElement>(null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const baseId = useId();
  const close = (): void => dispatch({ type: 'closeMenu' });
  // CONTACT US lives under ABOUT US: its tab stays selected.
  const selectedTab: MenuTab = ui.menuTab === T.menuTabs.contactUs ? T.menuTabs.aboutUs : ui.menuTab;

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (event.key === 'Home' || event.key === 'End' || delta !== 0) {
      event.preventDefault();
      const next =
        event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? TABS.length - 1
            : (index + delta + TABS.length) % TABS.length;
      dispatch({ type: 'menuTab', tab: TABS[next] as MenuTab });
      tabRefs.current[next]?.focus();
    }
  };

  const tabId = (i: number): string => `${baseId}-tab-${i}`;
  const panelId = `${baseId}-panel`;

  return (
    <Dialog
      id={GAME_MENU_ID}
      title={T.gameMenu}
      hideTitle
      onClose={close}
      variant={side === 'left' ? 'drawer-left' : 'drawer-right'}
      initialFocus={closeRef}
      className={styles.menu}
    >
      <div className={styles.top}>
        <span className={styles.brand}>{T.product}</span>
        <button ref={closeRef} type="button" className="icon-btn" aria-label={T.closeMenu} onClick={close}>
          <span aria-hidden="true">✕</span>
        </button>
      </div>

      <nav aria-label={T.menuNav} className={styles.nav}>
        {[...PLACES, user ? PROFILE : LOGIN].map(({ to, label }) => (
          <Link key={to} to={to} onClick={close}>
            {label}
          </Link>
        ))}
      </nav>

      <div role="tablist" aria-label={T.gameMenu} className={styles.tabs}>
        {TABS.map((tab, i) => (
          <button
            key={tab}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            id={tabId(i)}
            type="button"
            role="tab"
            aria-selected={selectedTab === tab}
            aria-controls={panelId}
            tabIndex={selectedTab === tab ? 0 : -1}
            className={styles.tab}
            onClick={() => dispatch({ type: 'menuTab', tab })}
            onKeyDown={(event) => onTabKey(event, i)}
          >
            {tab}
          </button>
        ))}
      </div>
      <div
        id={panelId}
        role="tabpanel"
        aria-labelledby={tabId(TABS.indexOf(selectedTab))}
        className={styles.panel}
      >
        {ui.menuTab === T.menuTabs.howToPlay ? <HowToPlay /> : null}
        {ui.menuTab === T.menuTabs.aboutUs ? (
          <AboutUs onContact={() => dispatch({ type: 'menuTab', tab: T.menuTabs.contactUs })} />
        ) : null}
        {ui.menuTab === T.menuTabs.contactUs ? (
          <ContactUs onBack={() => dispatch({ type: 'menuTab', tab: T.menuTabs.aboutUs })} />
        ) : null}
      </div>
    </Dialog>
  );
}
