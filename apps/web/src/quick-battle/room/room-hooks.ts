import type { AuthUser, RoomView } from '@oasis198/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useRef, useState, type RefObject } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorMessage, isApiError, keys, useRoom, useRoomIntent, useRoomStream, visitorId } from '../../api';
import { useTimeouts } from '../../components/hooks';
import { T } from '../../texts';
import { JOIN_OVERLAY_MS } from '../constants';

/** What a refused join means to the screen: the room-full overlay, or a message to show. */
export type JoinRefusal = { full: true } | { full: false; message: string };

/**
 * Tells a refused join apart by the error's code, never its wording: ROOM_FULL is SPEC's
 * 'Game already started' overlay; a refusal of a passcode room's join (FORBIDDEN, or a passcode the
 * server cannot accept) is 'Oops, try again!'; anything else is shown as the server words it.
 */
export function joinRefusal(error: unknown, hasPassCode: boolean): JoinRefusal {
  const code = isApiError(error) ? error.code : null;
  if (code === 'ROOM_FULL') return { full: true };
  if (hasPassCode && (code === 'FORBIDDEN' || code === 'VALIDATION')) {
    return { full: false, message: T.wrongPasscode };
  }
  return { full: false, message: errorMessage(error) };
}

/**
 * The room, live from its stream (polling while the stream is down). Unless the viewer is leaving
 * on purpose, a room the server closes (its clock ran out, a player left) sends them to `closedTo`
 * (the room list, or an arena room's event page) with the reason (SPEC §4, DECISIONS "Time"): from
 * the push, or from the 404 of a room closed lately, which says why (a stream that was down missed
 * the push). Any other 404 goes to /quick-battle (SPEC §8).
 */
export function useLiveRoom(roomId: string, leaving: RefObject<boolean>, closedTo: string) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const closed = (reason: string): void => {
    if (leaving.current) return;
    client.removeQueries({ queryKey: keys.room(roomId) });
    const notice = T.roomGone[reason] ?? T.roomGone.deleted;
    void navigate(closedTo, { replace: true, state: { notice } });
  };
  const live = useRoomStream(roomId, closed);
  const query = useRoom(roomId, live);
  const notFound = isApiError(query.error) && query.error.code === 'NOT_FOUND';
  const closedReason = notFound && isApiError(query.error) ? query.error.details?.['reason'] : undefined;
  const onNotFound = useEffectEvent(() => {
    if (closedReason !== undefined) return closed(closedReason);
    if (leaving.current) return;
    client.removeQueries({ queryKey: keys.room(roomId) });
    void navigate('/quick-battle', { replace: true, state: { notice: T.roomGone.notFound } });
  });

  useEffect(() => {
    if (notFound) onNotFound();
  }, [notFound]);

  return { query, notFound };
}

/** Visitors watch under a local id (SPEC §3), created on first need. */
export function useVisitorId(user: AuthUser | null): void {
  useEffect(() => {
    if (!user) visitorId();
  }, [user]);
}

/** A flag that stays up for `ms` once raised, then runs `then` (SPEC's 2.5 s "can't join" overlay). */
export function useTimedOverlay(ms = JOIN_OVERLAY_MS) {
  const later = useTimeouts();
  const [shown, setShown] = useState(false);
  const show = (then: () => void): void => {
    setShown(true);
    later(() => {
      setShown(false);
      then();
    }, ms);
  };
  return { shown, show };
}

/**
 * Joining as the logged-in user, with the passcode when the room has one. The refusal's message is
 * derived from the mutation's own result, beside `pending` (a new attempt clears it), rather than
 * kept in a second state that must be cleared by hand.
 */
export function useJoin(
  roomId: string,
  room: RoomView | undefined,
  user: AuthUser | null,
  onFull: () => void,
) {
  const join = useRoomIntent(roomId);
  const submit = (passCode?: string): void => {
    if (!user || !room) return;
    join.mutate(
      {
        players: { playerId: user._id, playerName: user.name },
        ...(room.hasPassCode ? { passCode: passCode ?? '' } : {}),
      },
      {
        onError: (failure) => {
          if (joinRefusal(failure, room.hasPassCode).full) onFull();
        },
      },
    );
  };
  const refusal = join.error ? joinRefusal(join.error, room?.hasPassCode ?? false) : null;
  return { submit, pending: join.isPending, error: refusal && !refusal.full ? refusal.message : null };
}

/**
 * Leaving the room (SPEC §4): the player goes to `home` (the room list, or an arena room's event
 * page) once the server agrees, or if the room is already gone. `leaving` is up meanwhile, so the
 * room's deletion is expected, not news.
 */
export function useLeave(roomId: string, user: AuthUser | null, home: string) {
  const navigate = useNavigate();
  const leave = useRoomIntent(roomId);
  const leaving = useRef(false);
  const [exited, setExited] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = (): void => {
    if (!user) return;
    const toHome = (): void => void navigate(home, { replace: true });
    leaving.current = true;
    setExited(true);
    setError(null);
    leave.mutate(
      { players: { playerId: user._id, removePlayer: true } },
      {
        onSuccess: toHome,
        onError: (failure) => {
          if (isApiError(failure) && failure.code === 'NOT_FOUND') return toHome();
          leaving.current = false;
          setExited(false);
          setError(errorMessage(failure));
        },
      },
    );
  };
  return { submit, pending: leave.isPending, error, clearError: () => setError(null), exited, leaving };
}
