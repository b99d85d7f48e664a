import type { ReactNode } from 'react';
import { T } from '../texts';
import styles from './Tournaments.module.css';

/** A hand-drawn world map; its continents are rough outlines, its children sit on top of it. */
export function WorldMap({ children, highlight }: { children?: ReactNode; highlight?: string }) {
  const fill = (id: string): string => (highlight === id ? '#0f766e' : '#e9c88a');
  return (
    <div className={styles.map}>
      <svg viewBox="0 0 1000 500" role="img" aria-label={T.worldMap} focusable="false">
        <rect width="1000" height="500" rx="24" fill="#bfe6e0" />
        <g stroke="#a8d8d0" strokeWidth="1" fill="none" aria-hidden="true">
          <path d="M0 125H1000M0 250H1000M0 375H1000M250 0V500M500 0V500M750 0V500" />
        </g>
        <g stroke="#7a5a2b" strokeWidth="3" strokeLinejoin="round">
          <path
            d="M90 80 L250 60 L330 90 L300 150 L255 195 L232 258 L205 250 L160 200 L110 160 Z"
            fill={fill('north-america')}
          />
          <path d="M335 40 L395 35 L385 82 L348 86 Z" fill={fill('north-america')} />
          <path
            d="M252 272 L312 282 L342 322 L322 382 L292 442 L272 442 L266 382 L246 322 Z"
            fill={fill('south-america')}
          />
          <path d="M462 78 L540 70 L562 110 L532 150 L482 152 L456 120 Z" fill={fill('europe')} />
          <path
            d="M462 170 L562 166 L602 222 L582 302 L542 372 L512 372 L492 302 L452 232 Z"
            fill={fill('africa')}
          />
          <path
            d="M568 70 L762 58 L882 92 L862 162 L802 202 L742 242 L682 222 L622 202 L582 162 L566 112 Z"
            fill={fill('asia')}
          />
          <path d="M782 322 L872 312 L902 362 L862 402 L792 392 Z" fill={fill('australia')} />
        </g>
      </svg>
      {children}
    </div>
  );
}
