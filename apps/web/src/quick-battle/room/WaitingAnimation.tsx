import { useWaitingGif } from '../../api';
import { getConfig, gifServiceEnabled } from '../../config';
import { T } from '../../texts';
import styles from './Room.module.css';

function providerOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The opponent-waiting animation: a GIF service's preview image, refreshed every 3 s, only when an
 * operator configured a key; otherwise a bundled animation and no third-party call at all.
 */
export function WaitingAnimation({
  active = true,
  fill = false,
}: {
  active?: boolean;
  /** Grow to the space the parent leaves (the opponent's-turn panel), rather than a set size. */
  fill?: boolean;
}) {
  const config = getConfig();
  const useService = gifServiceEnabled(config);
  const gif = useWaitingGif(active && useService);
  const origin = useService ? providerOrigin(config.gifCategoriesUrl) : null;

  if (useService && gif.data) {
    return (
      <figure className={`${styles.gif} ${fill ? styles.fill : ''}`}>
        <img src={gif.data} alt={T.waitingAnimation} referrerPolicy="no-referrer" />
        {origin ? (
          <figcaption>
            <a href={origin} target="_blank" rel="noopener noreferrer">
              {T.poweredBy} {new URL(origin).hostname}
            </a>
          </figcaption>
        ) : null}
      </figure>
    );
  }

  return (
    <div
      className={`${styles.caravan} ${fill ? styles.fill : ''}`}
      role="img"
      aria-label={T.waitingAnimation}
    >
      {/* Drawn from the bottom: a taller box shows more sky above the dunes. */}
      <svg viewBox="0 0 240 90" preserveAspectRatio="xMidYMax meet" aria-hidden="true" focusable="false">
        <circle className={styles.caravanSun} cx="200" cy="22" r="14" />
        <path d="M0 70 Q50 50 110 66 T240 60 V90 H0Z" fill="#e9c88a" />
        <path d="M0 80 Q70 64 140 78 T240 76 V90 H0Z" fill="#c9a15f" />
        <g className={styles.camel}>
          <path
            d="M10 60c2-8 8-12 14-10 3-8 10-8 13 0 3-2 6-1 7 2l5-8c2-3 6-2 6 1l-4 10c-1 3-3 5-6 5v10h-3v-9h-14v9h-3v-9c-4 0-7-2-8-5z"
            fill="#7a5a2b"
          />
        </g>
        <g className={styles.palm}>
          <path d="M150 68V46" stroke="#6b4423" strokeWidth="3" />
          <path
            d="M150 46c-5-5-12-3-14 0 5-2 9-1 14 0zm0 0c5-5 12-3 14 0-5-2-9-1-14 0zm0 0c-2-6-7-8-10-6 4 1 7 3 10 6zm0 0c2-6 7-8 10-6-4 1-7 3-10 6z"
            fill="#2f7d4f"
          />
          <ellipse cx="150" cy="70" rx="16" ry="3" fill="#1fa39a" />
        </g>
      </svg>
    </div>
  );
}
