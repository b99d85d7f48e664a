import { Link } from 'react-router-dom';
import { getConfig } from '../config';
import { T } from '../texts';
import styles from './Footer.module.css';

const SOCIAL = [
  {
    name: 'Facebook',
    href: 'https://www.facebook.com/',
    path: 'M14 8h3V4h-3c-2.8 0-4.5 1.8-4.5 4.6V11H7v4h2.5v9h4v-9h3l.5-4h-3.5V8.9c0-.6.3-.9 1-.9z',
  },
  {
    name: 'Instagram',
    href: 'https://www.instagram.com/',
    path: 'M8 3h8a5 5 0 0 1 5 5v8a5 5 0 0 1-5 5H8a5 5 0 0 1-5-5V8a5 5 0 0 1 5-5zm0 2a3 3 0 0 0-3 3v8a3 3 0 0 0 3 3h8a3 3 0 0 0 3-3V8a3 3 0 0 0-3-3zm4 3.5a3.5 3.5 0 1 1 0 7 3.5 3.5 0 0 1 0-7zm0 2a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zM17 6a1 1 0 1 1 0 2 1 1 0 0 1 0-2z',
  },
  {
    name: 'X',
    href: 'https://x.com/',
    path: 'M4 4h4.6l3.9 5.4L17 4h3l-6.1 7 6.6 9H16l-4.2-5.8L6.8 20H4l6.4-7.3z',
  },
  {
    name: 'YouTube',
    href: 'https://www.youtube.com/',
    path: 'M21.6 7.2a2.6 2.6 0 0 0-1.8-1.8C18.2 5 12 5 12 5s-6.2 0-7.8.4A2.6 2.6 0 0 0 2.4 7.2 27 27 0 0 0 2 12a27 27 0 0 0 .4 4.8 2.6 2.6 0 0 0 1.8 1.8C5.8 19 12 19 12 19s6.2 0 7.8-.4a2.6 2.6 0 0 0 1.8-1.8A27 27 0 0 0 22 12a27 27 0 0 0-.4-4.8zM10 15V9l5.2 3z',
  },
] as const;

function StoreBadge({ label, glyph }: { label: string; glyph: 'apple' | 'play' }) {
  return (
    <Link to="/" className={styles.badge} aria-label={label}>
      <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className={styles.badgeIcon}>
        {glyph === 'apple' ? (
          <path d="M16.4 12.6c0-2.4 2-3.5 2-3.6a4.3 4.3 0 0 0-3.4-1.8c-1.4-.2-2.8.8-3.5.8s-1.8-.8-3-.8A4.5 4.5 0 0 0 4.7 9.5c-1.6 2.8-.4 7 1.2 9.2.8 1.1 1.7 2.3 2.8 2.3s1.6-.7 3-.7 1.8.7 3 .7 2-1.1 2.7-2.2a9 9 0 0 0 1.2-2.5 3.9 3.9 0 0 1-2.2-3.7zM14.2 5.6A4 4 0 0 0 15.1 2.7a4 4 0 0 0-2.7 1.4 3.8 3.8 0 0 0-.9 2.8 3.4 3.4 0 0 0 2.7-1.3z" />
        ) : (
          <path d="M4 2.8v18.4c0 .4.4.6.7.4l10.4-9.2a.5.5 0 0 0 0-.8L4.7 2.4c-.3-.2-.7 0-.7.4zm12.6 7.3 2.9 1.6c.5.3.5.9 0 1.2l-2.9 1.6-2.3-2.2z" />
        )}
      </svg>
      <span aria-hidden="true" className={styles.badgeText}>
        {label}
      </span>
    </Link>
  );
}

export function Footer() {
  const year = new Date().getFullYear();
  return (
    <footer className={styles.footer}>
      <div className={styles.badges}>
        <StoreBadge label={T.appStore} glyph="apple" />
        <StoreBadge label={T.googlePlay} glyph="play" />
      </div>
      <nav aria-label={T.social}>
        <ul className={styles.social}>
          {SOCIAL.map((network) => (
            <li key={network.name}>
              <a href={network.href} target="_blank" rel="noopener noreferrer" aria-label={network.name}>
                <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
                  <path d={network.path} />
                </svg>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p className={styles.copy}>
        <a href={getConfig().ownerSiteUrl}>{T.copyright(year)}</a>
      </p>
    </footer>
  );
}
