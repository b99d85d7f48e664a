import { useState } from 'react';
import { Link, Navigate, Outlet, useNavigate, useParams } from 'react-router-dom';
import { isArenaEvent } from '@oasis198/contracts';
import { T } from '../texts';
import { CITIES, CONTINENTS, COUNTRIES, EVENTS, type Choice } from './data';
import { EventArena } from './EventArena';
import styles from './Tournaments.module.css';

const EVENT_CUP = '/tournaments/event-cup';
import { WorldMap } from './WorldMap';

export function TournamentsLayout() {
  return (
    <div className="page">
      <Outlet />
    </div>
  );
}

const CUP_LINKS = [
  { to: '/tournaments/world-cup', label: T.cups.world },
  { to: '/tournaments/coninental-cup', label: T.cups.continental },
  { to: '/tournaments/country-cup', label: T.cups.country },
  { to: '/tournaments/city-cup', label: T.cups.city },
  { to: '/tournaments/event-cup', label: T.cups.event },
] as const;

/** /tournaments: the five cups (SPEC §2). */
export function TournamentsHome() {
  return (
    <section aria-labelledby="tournaments-title" className={styles.home}>
      <h1 id="tournaments-title">{T.tournaments}</h1>
      <p>{T.tournamentsIntro}</p>
      <div className={styles.cupGrid}>
        {CUP_LINKS.map((cup) => (
          <Link key={cup.to} to={cup.to} className="btn btn-big">
            {cup.label}
          </Link>
        ))}
      </div>
      <p>
        <Link to="/tournaments/quote">{T.quoteLink}</Link>
      </p>
    </section>
  );
}

function BackToTournaments() {
  return (
    <p className={styles.back}>
      <Link to="/tournaments">← {T.backToTournaments}</Link>
    </p>
  );
}

function Unavailable() {
  return (
    <p role="status" className={`notice ${styles.unavailable}`}>
      {T.cupUnavailable}
    </p>
  );
}

/** /tournaments/quote: a word for the road. */
export function Quote() {
  return (
    <section aria-labelledby="quote-title" className={styles.quote}>
      <BackToTournaments />
      <h1 id="quote-title" className="visually-hidden">
        {T.quoteLink}
      </h1>
      <figure>
        <blockquote>
          <p>{T.quote}</p>
        </blockquote>
        <figcaption>— {T.quoteAuthor}</figcaption>
      </figure>
    </section>
  );
}

export function WorldCup() {
  return (
    <section aria-labelledby="world-title">
      <BackToTournaments />
      <h1 id="world-title">{T.cups.world}</h1>
      <WorldMap />
      <Unavailable />
    </section>
  );
}

/** /tournaments/coninental-cup (spelled so): six clickable continent points. */
export function ContinentalCup() {
  const navigate = useNavigate();
  return (
    <section aria-labelledby="continental-title">
      <BackToTournaments />
      <h1 id="continental-title">{T.cups.continental}</h1>
      <p id="continent-hint">{T.chooseContinent}</p>
      <WorldMap>
        <ul className={styles.points} aria-labelledby="continent-hint">
          {CONTINENTS.map((c) => (
            <li key={c.id} style={{ left: `${c.x}%`, top: `${c.y}%` }}>
              <button
                type="button"
                className={styles.point}
                onClick={() => navigate(`/tournaments/coninental-cup/${c.id}`)}
              >
                <span className={styles.pin} aria-hidden="true" />
                <span className={styles.pointLabel}>{c.name}</span>
              </button>
            </li>
          ))}
        </ul>
      </WorldMap>
    </section>
  );
}

export function ContinentPage() {
  const { continentId } = useParams();
  const navigate = useNavigate();
  const [continued, setContinued] = useState(false);
  const continent = CONTINENTS.find((c) => c.id === continentId);
  if (!continent) return <Navigate to="/tournaments/coninental-cup" replace />;
  return (
    <section aria-labelledby="continent-title">
      <BackToTournaments />
      <h1 id="continent-title">{continent.name}</h1>
      <WorldMap highlight={continent.id} />
      <div className={styles.actions}>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => navigate('/tournaments/coninental-cup')}
        >
          {T.changeContinent}
        </button>
        <button type="button" className="btn" onClick={() => setContinued(true)}>
          {T.continue}
        </button>
      </div>
      {continued ? <Unavailable /> : null}
    </section>
  );
}

/** Country, city and event cups: a dropdown where only some choices are enabled (SPEC §2). */
function ChoiceCup({
  title,
  base,
  label,
  options,
}: {
  title: string;
  base: string;
  label: string;
  options: Choice[];
}) {
  const { choiceId } = useParams();
  const navigate = useNavigate();
  const [value, setValue] = useState('');

  if (choiceId !== undefined) {
    const chosen = options.find((o) => o.id === choiceId && o.enabled);
    if (!chosen) return <Navigate to={base} replace />;
    return (
      <section aria-labelledby="choice-title">
        <BackToTournaments />
        <p className={styles.kicker}>{title}</p>
        <h1 id="choice-title">{chosen.name}</h1>
        {isArenaEvent(chosen.id) && base === EVENT_CUP ? <EventArena eventId={chosen.id} /> : <Unavailable />}
        <p>
          <Link to={base}>← {label}</Link>
        </p>
      </section>
    );
  }

  return (
    <section aria-labelledby="cup-title">
      <BackToTournaments />
      <h1 id="cup-title">{title}</h1>
      <form
        className={styles.choose}
        onSubmit={(event) => {
          event.preventDefault();
          if (value) navigate(`${base}/${value}`);
        }}
      >
        <div className="field">
          <label htmlFor="cup-choice">{label}</label>
          <select id="cup-choice" value={value} onChange={(e) => setValue(e.target.value)}>
            <option value="">—</option>
            {options.map((o) => (
              <option key={o.id} value={o.id} disabled={!o.enabled}>
                {o.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn" disabled={!value}>
          {T.continue}
        </button>
      </form>
    </section>
  );
}

export function CountryCup() {
  return (
    <ChoiceCup
      title={T.cups.country}
      base="/tournaments/country-cup"
      label={T.chooseCountry}
      options={COUNTRIES}
    />
  );
}

export function CityCup() {
  return <ChoiceCup title={T.cups.city} base="/tournaments/city-cup" label={T.chooseCity} options={CITIES} />;
}

export function EventCup() {
  return <ChoiceCup title={T.cups.event} base={EVENT_CUP} label={T.chooseEvent} options={EVENTS} />;
}
