import { useState } from 'react';
import { useLocation, useParams } from 'react-router-dom';
import { useSession } from '../../api';
import { AlertOverlay } from '../../components/AlertOverlay';
import { ConfirmDialog } from '../../components/Dialog';
import { T } from '../../texts';
import type { RoomIntent } from '../constants';
import { roomDisplayName } from './perspective';
import { useJoin, useLeave, useLiveRoom, useTimedOverlay, useVisitorId } from './room-hooks';
import { useRoomPlace } from './room-place';
import { RoomBar, RoomLayers, RoomPending } from './RoomLayers';
import styles from './Room.module.css';

function intentFrom(state: unknown): RoomIntent | null {
  const intent = (state as { intent?: unknown } | null)?.intent;
  return intent === 'play' || intent === 'watch' ? intent : null;
}

/**
 * /quick-battle/rooms/{roomId}: lobby, game and game-over layers, live from the room's stream.
 * Exit and a closed room lead to the room's place (RoomPlaceContext: the room list unless said).
 */
export function RoomScreen() {
  const { roomId = '' } = useParams();
  const location = useLocation();
  const user = useSession();
  const [intent, setIntent] = useState<RoomIntent | null>(() => intentFrom(location.state));
  const [exitOpen, setExitOpen] = useState(false);
  const { home } = useRoomPlace();
  const leave = useLeave(roomId, user, home);
  const { query, notFound } = useLiveRoom(roomId, leave.leaving, home);
  const room = query.data;
  const fullOverlay = useTimedOverlay();
  const join = useJoin(roomId, room, user, () => fullOverlay.show(() => setIntent('watch')));
  useVisitorId(user);

  const openExit = (): void => {
    leave.clearError();
    setExitOpen(true);
  };

  return (
    <div className={`page ${styles.screen}`}>
      <RoomBar roomId={roomId} />
      {room ? (
        <RoomLayers
          room={room}
          user={user}
          intent={intent}
          onIntent={setIntent}
          join={join}
          helpAllowed={roomId === room._id && !leave.exited}
          onExit={openExit}
          onLeave={leave.submit}
          leaving={leave.pending}
        />
      ) : (
        <RoomPending
          error={query.isError && !notFound ? query.error : null}
          onRetry={() => void query.refetch()}
        />
      )}
      {/* SPEC §8: 'Game already started — you can't join this room.', over the screen for 2.5 s. */}
      {fullOverlay.shown ? <AlertOverlay text={T.roomFull} /> : null}
      {exitOpen && room ? (
        // SPEC §2: 'Sure you want to leave the room {room name}?' with Cancel and Exit.
        <ConfirmDialog
          title={T.confirmExit(roomDisplayName(room))}
          confirm={T.exit}
          busy={T.leaving}
          tone="warm"
          onCancel={() => setExitOpen(false)}
          onConfirm={leave.submit}
          pending={leave.pending}
          error={leave.error}
        />
      ) : null}
    </div>
  );
}
