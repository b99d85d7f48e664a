import {
  ARENA_PUSH_EVENT,
  ArenaPaths,
  type ArenaRoomResponse,
  type EventArenaResponse,
  isObject,
} from '@oasis198/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, POLL_MS, retryTransient, useEventStream } from '../api';

const arenaKey = (eventId: string, userId: string | undefined) => ['arena', eventId, userId ?? ''] as const;

/** An event's arena: the caller's view when logged in, the public one otherwise; polled while not live. */
export function useEventArena(eventId: string, userId: string | undefined, live: boolean) {
  return useQuery<EventArenaResponse>({
    queryKey: arenaKey(eventId, userId),
    queryFn: ({ signal }) =>
      userId
        ? apiRequest<EventArenaResponse>(ArenaPaths.mine(eventId), { auth: true, signal })
        : apiRequest<EventArenaResponse>(ArenaPaths.event(eventId), { signal }),
    refetchInterval: live ? false : POLL_MS,
    retry: retryTransient,
  });
}

/**
 * The event page's live stream. A frame's `event` (the arena as anyone sees it) goes into the cache
 * as is; a frame marked `mine` with `roomId` seats the player there (the page goes to it); any other
 * `mine` frame (the player's own entry changed), one without `event`, and each (re)opening refetch
 * the arena.
 */
export function useArenaStream(eventId: string, userId: string | undefined): boolean {
  const client = useQueryClient();
  const refetch = (): void => void client.invalidateQueries({ queryKey: ['arena', eventId] });
  const onFrame = (data: unknown): void => {
    const frame: Record<string, unknown> = isObject(data) ? data : {};
    // Loosely checked: a frame from this event's stream carries this event's view.
    const event =
      isObject(frame.event) && frame.event.eventId === eventId ? (frame.event as EventArenaResponse) : null;
    const key = arenaKey(eventId, userId);
    const cached = client.getQueryData<EventArenaResponse>(key);
    if (frame.mine === true && typeof frame.roomId === 'string' && userId && cached) {
      // A read begun before the seat would answer without it: the frame is the newer word.
      void client.cancelQueries({ queryKey: key });
      client.setQueryData(key, { ...cached, joined: true, roomId: frame.roomId });
    } else if (frame.mine === true || !event) refetch();
    else if (!userId) client.setQueryData(key, event);
    // The pushed event is anyone's view: keep the player's own entry, unless there is none to keep
    // or a new arena began (their entry there may differ).
    else if (!cached || cached.arena?.arenaId !== event.arena?.arenaId) refetch();
    else client.setQueryData(key, { ...event, joined: cached.joined, roomId: cached.roomId });
  };
  return useEventStream(ArenaPaths.stream(eventId, userId), { [ARENA_PUSH_EVENT]: onFrame }, refetch);
}

/** Join or Leave; the answer is the arena as it is after it. */
export function useArenaEntry(eventId: string, userId: string | undefined) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (action: 'join' | 'leave') =>
      apiRequest<EventArenaResponse>(
        action === 'join' ? ArenaPaths.join(eventId) : ArenaPaths.leave(eventId),
        {
          method: 'POST',
          auth: true,
        },
      ),
    onSuccess: (arena) => client.setQueryData(arenaKey(eventId, userId), arena),
  });
}

/** The arena of an arena room (its name, end and the players' scores), refreshed every few seconds. */
export function useArenaRoom(roomId: string) {
  return useQuery<ArenaRoomResponse>({
    queryKey: ['arena-room', roomId],
    queryFn: ({ signal }) => apiRequest<ArenaRoomResponse>(ArenaPaths.room(roomId), { signal }),
    refetchInterval: POLL_MS,
    retry: retryTransient,
  });
}
