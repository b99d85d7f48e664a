import type { AuthUser, RoomView } from '@oasis198/contracts';
import { MAX_PLAYERS, roomLabel, type Seat } from '@oasis198/game-rules';
import { Link, useNavigate } from 'react-router-dom';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';
import { T } from '../../texts';
import type { RoomIntent } from '../constants';
import { GameLayer } from './GameLayer';
import { GameOver } from './GameOver';
import { AutoJoin, PasscodeEntry, PlayOrWatch, WaitingPanel } from './Lobby';
import { seatOf } from './perspective';
import { useRoomPlace } from './room-place';
import styles from './Room.module.css';

/** The way back to the room's place (the list), and the room's short label as the screen's heading. */
export function RoomBar({ roomId }: { roomId: string }) {
  const { home, homeLabel } = useRoomPlace();
  return (
    <div className={styles.roomBar}>
      <Link to={home} className={styles.back}>
        ← {homeLabel}
      </Link>
      <h1 className={styles.roomHeading}>{T.roomTitle(roomLabel(roomId))}</h1>
    </div>
  );
}

/** Before the room is known: loading, or the failure with a retry (a 404 leaves instead). */
export function RoomPending({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  if (!error) return <Spinner />;
  return <LoadError error={error} onRetry={onRetry} />;
}

export interface JoinControls {
  submit: (passCode?: string) => void;
  pending: boolean;
  error: string | null;
}

export interface RoomLayersProps {
  room: RoomView;
  user: AuthUser | null;
  intent: RoomIntent | null;
  onIntent: (intent: RoomIntent) => void;
  join: JoinControls;
  /** The path's room id matches and the user has not exited (SPEC §2's help panel conditions). */
  helpAllowed: boolean;
  /** Asks to leave (the exit confirmation). */
  onExit: () => void;
  /** Leaves at once (Exit Game after the game). */
  onLeave: () => void;
  leaving: boolean;
}

/** SPEC §2's three layers, for a player, a spectator, or someone who may still take a seat. */
export function RoomLayers(props: RoomLayersProps) {
  const { room, user } = props;
  const mySeat = seatOf(room, user?._id);
  if (mySeat) return <PlayerLayers {...props} mySeat={mySeat} />;
  if (room.players.length >= MAX_PLAYERS) return <SpectatorLayers room={room} />;
  return <CandidateLobby {...props} />;
}

/** A player: waiting for an opponent, playing (a quick-battle room with 2 players), or past the game. */
function PlayerLayers({
  room,
  mySeat,
  helpAllowed,
  onExit,
  onLeave,
  leaving,
}: RoomLayersProps & { mySeat: Seat }) {
  if (room.players.length < MAX_PLAYERS) {
    return <WaitingPanel room={room} member onExit={onExit} />;
  }
  if (room.gameOver) return <GameOver room={room} mySeat={mySeat} onLeave={onLeave} leaving={leaving} />;
  return <GameLayer room={room} mySeat={mySeat} helpAllowed={helpAllowed} onExit={onExit} />;
}

/** DECISIONS.md: anyone may watch a full room, read-only. */
function SpectatorLayers({ room }: { room: RoomView }) {
  const navigate = useNavigate();
  const { home } = useRoomPlace();
  const back = (): void => void navigate(home);
  let layer;
  if (room.gameOver) layer = <GameOver room={room} mySeat={null} onLeave={back} leaving={false} />;
  else layer = <GameLayer room={room} mySeat={null} helpAllowed={false} onExit={back} />;
  return (
    <>
      <p className="notice" role="status">
        {T.watching}
      </p>
      {layer}
    </>
  );
}

/** A room with a free spot, seen from outside: play (logged in) or watch. */
function CandidateLobby({ room, user, intent, onIntent, join }: RoomLayersProps) {
  const watch = (): void => onIntent('watch');
  const play = (): void => onIntent('play');
  if (intent === 'play' && user) {
    return room.hasPassCode ? (
      <PasscodeEntry onSubmit={join.submit} pending={join.pending} error={join.error} onWatch={watch} />
    ) : (
      <AutoJoin onJoin={() => join.submit()} onCancel={watch} error={join.error} />
    );
  }
  if (intent === 'watch') {
    return <WaitingPanel room={room} member={false} onPlay={user ? play : undefined} />;
  }
  return <PlayOrWatch loggedIn={user !== null} onPlay={play} onWatch={watch} />;
}
