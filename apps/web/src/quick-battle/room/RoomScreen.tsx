import { MAX_PLAYERS, roomLabel } from '@oasis198/game-rules';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import {
  errorMessage,
  isApiError,
  keys,
  useRoom,
  useRoomIntent,
  useRoomStream,
  useSession,
  visitorId,
} from '../../api';
import { useTimeouts } from '../../components/hooks';
import { Spinner } from '../../components/Spinner';
import { T } from '../../texts';
import { JOIN_OVERLAY_MS, type RoomIntent } from '../constants';
import { ExitDialog } from './ExitDialog';
import { GameLayer } from './GameLayer';
import { GameOver } from './GameOver';
import { AutoJoin, PasscodeEntry, PlayOrWatch, WaitingPanel } from './Lobby';
import { roomDisplayName, seatOf } from './perspective';
import styles from './Room.module.css';

function intentFrom(state: unknown): RoomIntent | null {
  const intent = (state as { intent?: unknown } | null)?.intent;
  return intent === 'play' || intent === 'watch' ? intent : null;
}

/** /quick-battle/rooms/{roomId}: lobby, game and game-over layers, live from the room's stream. */
export function RoomScreen() {
  const { roomId = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const user = useSession();
  const later = useTimeouts();
  const [intent, setIntent] = useState<RoomIntent | null>(() => intentFrom(location.state));
  const [joinError, setJoinError] = useState<string | null>(null);
  const [fullOverlay, setFullOverlay] = useState(false);
  const [exitOpen, setExitOpen] = useState(false);
  const [exitError, setExitError] = useState<string | null>(null);
  // Set once the player leaves on purpose: the room's deletion is then expected, not news.
  const exiting = useRef(false);
  const [exited, setExited] = useState(false);

  const leaveFor = (notice: string): void => {
    client.removeQueries({ queryKey: keys.room(roomId) });
    navigate('/quick-battle', { replace: true, state: { notice } });
  };

  const live = useRoomStream(roomId, (reason) => {
    if (!exiting.current) leaveFor(T.roomGone[reason] ?? T.roomGone.deleted ?? '');
  });
  const query = useRoom(roomId, live);
  const join = useRoomIntent(roomId);
  const leave = useRoomIntent(roomId);
  const room = query.data;
  const notFound = isApiError(query.error) && query.error.status === 404;

  useEffect(() => {
    if (notFound && !exiting.current) {
      client.removeQueries({ queryKey: keys.room(roomId) });
      navigate('/quick-battle', { replace: true, state: { notice: T.roomGone.notFound } });
    }
  }, [notFound, client, navigate, roomId]);

  useEffect(() => {
    // Visitors watch under a local id (SPEC §3), created on first need.
    if (!user) visitorId();
  }, [user]);

  const doJoin = (passCode?: string): void => {
    if (!user || !room) return;
    setJoinError(null);
    join.mutate(
      {
        players: { playerId: user._id, playerName: user.name },
        ...(room.hasPassCode ? { passCode: passCode ?? '' } : {}),
      },
      {
        onError: (error) => {
          if (
            isApiError(error) &&
            (error.message === T.roomFull || (error.status === 409 && room.players.length >= MAX_PLAYERS))
          ) {
            setFullOverlay(true);
            later(() => {
              setFullOverlay(false);
              setIntent('watch');
            }, JOIN_OVERLAY_MS);
            return;
          }
          if (room.hasPassCode && isApiError(error) && (error.status === 403 || error.status === 400)) {
            setJoinError(T.wrongPasscode);
            return;
          }
          setJoinError(errorMessage(error));
        },
      },
    );
  };

  const doLeave = (): void => {
    if (!user) return;
    exiting.current = true;
    setExited(true);
    setExitError(null);
    leave.mutate(
      { players: { playerId: user._id, removePlayer: true } },
      {
        onSuccess: () => {
          navigate(`/${room?.gameType ?? 'quick-battle'}/rooms`, { replace: true });
        },
        onError: (error) => {
          if (isApiError(error) && error.status === 404) {
            navigate(`/${room?.gameType ?? 'quick-battle'}/rooms`, { replace: true });
            return;
          }
          exiting.current = false;
          setExited(false);
          setExitError(errorMessage(error));
        },
      },
    );
  };

  let content;
  if (!room) {
    content =
      query.isError && !notFound ? (
        <div role="alert" className="alert">
          <p>{errorMessage(query.error)}</p>
          <button type="button" className="btn btn-secondary" onClick={() => void query.refetch()}>
            {T.retry}
          </button>
        </div>
      ) : (
        <Spinner />
      );
  } else {
    const mySeat = seatOf(room, user?._id);
    const full = room.players.length >= MAX_PLAYERS;
    const quick = room.gameType === 'quick-battle';
    const helpAllowed = roomId === room._id && !exited;
    const openExit = (): void => {
      setExitError(null);
      setExitOpen(true);
    };
    if (mySeat) {
      if (!full || !quick) content = <WaitingPanel room={room} member onExit={openExit} />;
      else if (room.gameOver)
        content = <GameOver room={room} mySeat={mySeat} onLeave={doLeave} leaving={leave.isPending} />;
      else content = <GameLayer room={room} mySeat={mySeat} helpAllowed={helpAllowed} onExit={openExit} />;
    } else if (full) {
      // DECISIONS.md: anyone may watch a full room, read-only.
      const back = (): void => void navigate('/quick-battle/rooms');
      content = (
        <>
          <p className="notice" role="status">
            {T.watching}
          </p>
          {!quick ? (
            <WaitingPanel room={room} member={false} />
          ) : room.gameOver ? (
            <GameOver room={room} mySeat={null} onLeave={back} leaving={false} />
          ) : (
            <GameLayer room={room} mySeat={null} helpAllowed={false} onExit={back} />
          )}
        </>
      );
    } else if (intent === 'play' && user) {
      content = room.hasPassCode ? (
        <PasscodeEntry
          onSubmit={doJoin}
          pending={join.isPending}
          error={joinError}
          onWatch={() => setIntent('watch')}
        />
      ) : (
        <AutoJoin onJoin={() => doJoin()} onCancel={() => setIntent('watch')} error={joinError} />
      );
    } else if (intent === 'watch') {
      content = (
        <WaitingPanel room={room} member={false} onPlay={user ? () => setIntent('play') : undefined} />
      );
    } else {
      content = (
        <PlayOrWatch
          loggedIn={user !== null}
          onPlay={() => setIntent('play')}
          onWatch={() => setIntent('watch')}
        />
      );
    }
  }

  return (
    <div className={`page ${styles.screen}`}>
      <div className={styles.roomBar}>
        <Link to="/quick-battle/rooms" className={styles.back}>
          ← {T.rooms}
        </Link>
        <h1 className={styles.roomHeading}>{T.roomTitle(roomLabel(roomId))}</h1>
      </div>
      {content}
      {fullOverlay ? (
        <div className={styles.overlay} role="alert">
          <p>{T.roomFull}</p>
        </div>
      ) : null}
      {exitOpen && room ? (
        <ExitDialog
          roomName={roomDisplayName(room)}
          onCancel={() => setExitOpen(false)}
          onExit={doLeave}
          pending={leave.isPending}
          error={exitError}
        />
      ) : null}
    </div>
  );
}
