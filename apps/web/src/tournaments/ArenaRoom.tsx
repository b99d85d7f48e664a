import { Link, useParams } from 'react-router-dom';
import { useSession } from '../api';
import { RoomScreen } from '../quick-battle/room/RoomScreen';
import { useArenaRoom } from './arena-api';
import { ARENA_T, mmss } from './arena-texts';
import { useNow } from './EventArena';
import styles from './Tournaments.module.css';

/** The arena's name, its time left and the player's score, above an arena room. */
function ArenaBar({ roomId }: { roomId: string }) {
  const user = useSession();
  const arena = useArenaRoom(roomId).data;
  const now = useNow();
  if (!arena) return null;
  const me = arena.players.find((p) => p.playerId === user?._id);
  return (
    <aside className={styles.arenaBar} aria-label={ARENA_T.arena}>
      <Link to={`/tournaments/event-cup/${arena.eventId}`}>{arena.name}</Link>
      <span>
        {ARENA_T.timeLeft}: {mmss(Date.parse(arena.endsAt) - now)}
      </span>
      {me ? (
        <span>
          {ARENA_T.yourScore}: {me.score}
        </span>
      ) : null}
    </aside>
  );
}

/** /tournament/rooms/{roomId}: an arena room, played as a quick-battle room is. */
export function ArenaRoom() {
  const { roomId = '' } = useParams();
  return (
    <div className="page">
      <ArenaBar roomId={roomId} />
      <RoomScreen />
    </div>
  );
}
