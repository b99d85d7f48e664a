import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useSession } from '../api';
import { RoomPlaceContext, type RoomPlace } from '../quick-battle/room/room-place';
import { RoomScreen } from '../quick-battle/room/RoomScreen';
import { useArenaRoom, useArenaStream, useEventArena } from './arena-api';
import { ARENA_T, mmss } from './arena-texts';
import { useGoToArenaGame, useNow } from './EventArena';
import styles from './Tournaments.module.css';

/** Takes a player from a room whose game is over to the next game the arena pairs them in. */
function NextArenaGame({ eventId, userId, roomId }: { eventId: string; userId: string; roomId: string }) {
  const live = useArenaStream(eventId, userId);
  useGoToArenaGame(useEventArena(eventId, userId, live).data?.roomId, roomId);
  return null;
}

/** The arena's name, its time left and the player's score, above an arena room. */
function ArenaBar({ roomId }: { roomId: string }) {
  const user = useSession();
  const arena = useArenaRoom(roomId).data;
  const now = useNow();
  if (!arena) return null;
  const me = arena.players.find((p) => p.playerId === user?._id);
  return (
    <aside className={styles.arenaBar} aria-label={ARENA_T.arena}>
      {me && user ? <NextArenaGame eventId={arena.eventId} userId={user._id} roomId={roomId} /> : null}
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

/** /tournament/rooms/{roomId}: an arena room, played as a quick-battle room is, but once. */
export function ArenaRoom() {
  const { roomId = '' } = useParams();
  const eventId = useArenaRoom(roomId).data?.eventId;
  // The room belongs to its event page, not the room list: a finished arena room closes when the
  // opponent moves on, and its player waits there for the next pairing. The server refuses Play
  // Again (one game a room), so the game-over layer offers no rematch.
  const place = useMemo<RoomPlace>(
    () => ({
      home: eventId ? `/tournaments/event-cup/${eventId}` : '/tournaments/event-cup',
      homeLabel: ARENA_T.backToArena,
      rematch: false,
    }),
    [eventId],
  );
  return (
    <div className="page">
      <ArenaBar roomId={roomId} />
      <RoomPlaceContext value={place}>
        {/* A new room (the next arena game) starts a new screen, not the last game's state. */}
        <RoomScreen key={roomId} />
      </RoomPlaceContext>
    </div>
  );
}
