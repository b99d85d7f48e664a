import { HELP, T } from '../texts';
import styles from './GameMenu.module.css';

export function HowToPlay() {
  return (
    <div>
      {HELP.howToPlay.map((section) => (
        <section key={section.title}>
          <h3>{section.title}</h3>
          {section.lines.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </section>
      ))}
    </div>
  );
}

export function AboutUs({ onContact }: { onContact: () => void }) {
  return (
    <div>
      <h3>{T.menuTabs.aboutUs}</h3>
      {HELP.aboutUs.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <p>
        <button type="button" className={styles.linkButton} onClick={onContact}>
          {T.contactLink}
        </button>
      </p>
    </div>
  );
}

export function ContactUs({ onBack }: { onBack: () => void }) {
  return (
    <div>
      <h3>{T.menuTabs.contactUs}</h3>
      {HELP.contactUs.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <p>
        <button type="button" className={styles.linkButton} onClick={onBack}>
          {T.backToAbout}
        </button>
      </p>
    </div>
  );
}
