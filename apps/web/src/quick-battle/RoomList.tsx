import type { RoomView } from '@oasis198/contracts';
import { MAX_PLAYERS, ROOM_PAGE_SIZE, roomLabel } from '@oasis198/game-rules';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage, useMyRoom, usePlayNow, useRoomList, useRoomListStream, useSession } from '../api';
import { AlertOverlay } from '../components/AlertOverlay';
import { useTimeouts } from '../components/hooks';
import { LoadError } from '../components/LoadError';
import { RouteNotice } from '../components/RouteNotice';
import { Pager } from '../components/Pager';
import { Spinner } from '../components/Spinner';
import { Switch } from '../components/Switch';
import { T } from '../texts';
import { JOIN_OVERLAY_MS, type RoomIntent } from './constants';
import { LockIcon } from './LockIcon';
import styles from './QuickBattle.module.css';

/** /quick-battle/rooms: 8 rooms a page, newest first, live (SPEC §2, §4). */
export function RoomList() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const freeSpot = params.get('freeSpot') === 'true';
  const user = useSession();
  const live = useRoomListStream();
  const list = useRoomList(page, freeSpot, live);
  const mine = useMyRoom(user, live);
  const navigate = useNavigate();
  const later = useTimeouts();
  const [overlay, setOverlay] = useState<{ text: string; detail?: string } | null>(null);
  const playNow = usePlayNow();

  const go = (next: { page?: number; freeSpot?: boolean }): void => {
    const p = next.page ?? page;
    const f = next.freeSpot ?? freeSpot;
    const search = new URLSearchParams();
    if (p > 1) search.set('page', String(p));
    if (f) search.set('freeSpot', 'true');
    setParams(search);
  };

  const showOverlay = (text: string, detail?: string): void => {
    setOverlay({ text, detail });
    later(() => setOverlay(null), JOIN_OVERLAY_MS);
  };

  const enter = (room: RoomView): void => {
    const member = user !== null && room.players.some((p) => p.id === user._id);
    if (!member && room.players.length >= MAX_PLAYERS) return showOverlay(T.roomFull);
    // SPEC §4: not entering because the player is in another room is the same overlay, with why.
    if (!member && user && mine.data && mine.data._id !== room._id) {
      return showOverlay(T.roomFull, T.inAnotherRoom);
    }
    const intent: RoomIntent | undefined = user && !member ? 'play' : undefined;
    navigate(`/quick-battle/rooms/${room._id}`, { state: intent ? { intent } : null });
  };

  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / ROOM_PAGE_SIZE)) : 1;

  return (
    <div className="page">
      <div className={styles.topBar}>
        <Link to="/quick-battle" className={styles.back}>
          ← {T.backToQuickBattle}
        </Link>
      </div>
      <div className={styles.listHead}>
        <h1>{T.rooms}</h1>
        <div className={styles.listActions}>
          <Link to="/quick-battle/create" className="btn btn-warm">
            {T.createRoom}
          </Link>
          {user ? (
            <button
              type="button"
              className="btn btn-warm"
              title={T.playNowHint}
              disabled={playNow.isPending}
              onClick={() =>
                playNow.mutate(undefined, {
                  onSuccess: (room) => navigate(`/quick-battle/rooms/${room._id}`),
                  onError: (error) => showOverlay(errorMessage(error)),
                })
              }
            >
              {playNow.isPending ? <Spinner inline label={T.findingSeat} /> : null}
              {T.playNow}
            </button>
          ) : (
            <Link to="/login" className="btn btn-warm">
              {T.playNow}
            </Link>
          )}
          {user ? (
            mine.data ? (
              <Link to={`/quick-battle/rooms/${mine.data._id}`} className="btn btn-secondary">
                {T.myRoom}
              </Link>
            ) : (
              <button type="button" className="btn btn-secondary" disabled title={T.noMyRoom}>
                {T.myRoom}
              </button>
            )
          ) : (
            // SPEC §2 lists My Room for everyone; a visitor's way to a room of their own is to log in.
            <Link to="/login" className="btn btn-secondary">
              {T.myRoom}
            </Link>
          )}
        </div>
      </div>
      <RouteNotice />
      <Switch
        label={T.freeSpotOnly}
        checked={freeSpot}
        onChange={(checked) => go({ page: 1, freeSpot: checked })}
      />

      {list.isPending ? <Spinner /> : null}
      {list.isError && !data ? <LoadError error={list.error} onRetry={() => void list.refetch()} /> : null}

      {data && data.rooms.length === 0 ? (
        <p className={styles.empty} role="status">
          {T.noRooms}
        </p>
      ) : null}

      {data && data.rooms.length > 0 ? (
        <ul className={styles.rooms} aria-label={T.rooms}>
          {data.rooms.map((room) => (
            <RoomCard
              key={room._id}
              room={room}
              member={user !== null && room.players.some((p) => p.id === user._id)}
              onEnter={() => enter(room)}
            />
          ))}
        </ul>
      ) : null}

      {data ? <Pager page={page} pages={pages} onGo={(p) => go({ page: p })} /> : null}

      {overlay ? <AlertOverlay text={overlay.text} detail={overlay.detail} /> : null}
    </div>
  );
}

function RoomCard({ room, member, onEnter }: { room: RoomView; member: boolean; onEnter: () => void }) {
  const label = roomLabel(room._id);
  const available = room.players.length < MAX_PLAYERS;
  const titleId = `room-${room._id}`;
  return (
    <li className={`${styles.room} ${available ? styles.open : styles.full}`} aria-labelledby={titleId}>
      <div className={styles.roomHead}>
        <h2 id={titleId} className={styles.roomTitle}>
          {T.roomTitle(label)}
        </h2>
        {room.hasPassCode ? <LockIcon label={T.passcodeRequired} /> : null}
      </div>
      <p className={styles.roomMeta}>
        <span>{T.roomBy(room.createdBy.name)}</span>
        <span>{T.roomPlayers(room.players.length)}</span>
        <span>{T.roomSeconds(room.duration)}</span>
      </p>
      <p className={styles.roomStatus}>
        <span className={available ? styles.badgeOpen : styles.badgeFull}>
          {available ? T.enter : T.closed} · {available ? T.available : T.unavailable}
        </span>
      </p>
      <div className={styles.roomActions}>
        <button
          type="button"
          className={available || member ? 'btn' : 'btn btn-secondary'}
          aria-label={`${available || member ? T.enter : T.closed} ${T.roomTitle(label)}`}
          onClick={onEnter}
        >
          {available || member ? T.enter : T.closed}
        </button>
        <Link
          to={`/quick-battle/rooms/${room._id}`}
          state={{ intent: 'watch' satisfies RoomIntent }}
          className="btn btn-secondary"
          aria-label={`${T.watch} ${T.roomTitle(label)}`}
        >
          {T.watch}
        </Link>
      </div>
    </li>
  );
}
