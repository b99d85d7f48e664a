import { Suspense } from 'react';
import { Outlet, ScrollRestoration, useLocation } from 'react-router-dom';
import { Spinner } from '../components/Spinner';
import { Footer } from './Footer';
import { GameMenu } from './GameMenu';
import { Header } from './Header';
import styles from './Layout.module.css';
import { useUi } from './ui-state';

/** SPEC §2: the header is hidden when the second path segment is 'rooms'. */
export function headerHidden(pathname: string): boolean {
  return pathname.split('/').filter(Boolean)[1] === 'rooms';
}

export function Layout() {
  const { pathname } = useLocation();
  const { ui } = useUi();
  return (
    <div className={styles.shell}>
      <a href="#main" className={styles.skip}>
        Skip to content
      </a>
      {headerHidden(pathname) ? null : <Header />}
      <main id="main" className={styles.main} tabIndex={-1}>
        <Suspense fallback={<Spinner />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      {ui.menuOpen ? <GameMenu /> : null}
      <ScrollRestoration />
    </div>
  );
}
