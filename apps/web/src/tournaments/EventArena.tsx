import type { ArenaStanding, ArenaView } from '@oasis198/contracts';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { errorMessage, serverNowMs, useSession } from '../api';
import { T } from '../texts';
import { useArenaEntry, useArenaStream, useEventArena } from './arena-api';
import { ARENA_T, mmss } from './arena-texts';
import styles from './Tournaments.module.css';

/** The time now, by the server's clock, every second. */
export function useNow(): number {
  const [now, setNow] = useState(() => serverNowMs());
  useEffect(() => {
    const timer = setInterval(() => setNow(serverNowMs()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * A game in an arena starts at once: its player goes to it (unless already in `current`), or its
 * first turn runs out unseen and puts them out of the arena.
 */
export function useGoToArenaGame(roomId: string | null | undefined, current?: string): void {
  const navigate = useNavigate();
  useEffect(() => {
    if (roomId && roomId !== current) void navigate(`/tournament/rooms/${roomId}`);
  }, [roomId, current, navigate]);
}

function Standings({ standings, caption }: { standings: ArenaStanding[]; caption: string }) {
  if (standings.length === 0) return <p>{ARENA_T.noPlayers}</p>;
  return (
    <table className={styles.standings}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{ARENA_T.rank}</th>
          <th scope="col">{ARENA_T.player}</th>
          <th scope="col">{ARENA_T.score}</th>
          <th scope="col">{ARENA_T.games}</th>
        </tr>
      </thead>
      <tbody>
        {standings.map((s) => (
          <tr key={s.playerId} data-player={s.playerId}>
            <td>{s.rank}</td>
            <td>{s.name}</td>
            <td>{s.score}</td>
            <td>{s.games}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Countdown({ arena, now }: { arena: ArenaView; now: number }) {
  const startsAt = Date.parse(arena.startsAt);
  const endsAt = Date.parse(arena.endsAt);
  const text =
    now < startsAt
      ? `${ARENA_T.startsIn} ${mmss(startsAt - now)}`
      : now < endsAt
        ? `${ARENA_T.endsIn} ${mmss(endsAt - now)}`
        : ARENA_T.ended;
  return (
    <p className={styles.countdown} role="timer" aria-live="off">
      {text}
    </p>
  );
}

/** An event with arenas (DECISIONS "Event cup arenas"): countdown, standings, Join or Leave. */
export function EventArena({ eventId }: { eventId: string }) {
  const user = useSession();
  const live = useArenaStream(eventId, user?._id);
  const query = useEventArena(eventId, user?._id, live);
  const entry = useArenaEntry(eventId, user?._id);
  const now = useNow();
  const data = query.data;
  useGoToArenaGame(user ? data?.roomId : null);

  if (!data) {
    return query.isError ? <p role="alert">{errorMessage(query.error)}</p> : <p role="status">{T.loading}</p>;
  }
  if (!data.arena) {
    return (
      <p role="status" className={`notice ${styles.unavailable}`}>
        {T.cupUnavailable}
      </p>
    );
  }
  const arena = data.arena;
  const showPrevious = arena.status === 'upcoming' && data.previous && data.previous.standings.length > 0;
  return (
    <div className={styles.arena}>
      <Countdown arena={arena} now={now} />
      {data.roomId ? (
        <p className="notice" role="status">
          {ARENA_T.yourGame}: <Link to={`/tournament/rooms/${data.roomId}`}>{ARENA_T.toGame}</Link>
        </p>
      ) : null}
      {user ? (
        <div className={styles.arenaActions}>
          {data.joined ? <p>{ARENA_T.joined}</p> : null}
          <button
            type="button"
            className="btn"
            disabled={entry.isPending}
            onClick={() => entry.mutate(data.joined ? 'leave' : 'join')}
          >
            {data.joined ? ARENA_T.leave : ARENA_T.join}
          </button>
          {entry.isError ? <p role="alert">{errorMessage(entry.error)}</p> : null}
        </div>
      ) : (
        <p>
          <Link to="/login">{ARENA_T.loginToJoin}</Link>
        </p>
      )}
      <Standings standings={arena.standings} caption={ARENA_T.standings} />
      {showPrevious && data.previous ? (
        <Standings standings={data.previous.standings} caption={ARENA_T.lastStandings} />
      ) : null}
    </div>
  );
}
