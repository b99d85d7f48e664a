import {
  ARENA_PUSH_EVENT,
  ArenaPaths,
  type ArenaRoomResponse,
  type EventArenaResponse,
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

/** The event page's live stream: each notice (and each reopening) refetches the arena. */
export function useArenaStream(eventId: string): boolean {
  const client = useQueryClient();
  const refetch = (): void => void client.invalidateQueries({ queryKey: ['arena', eventId] });
  return useEventStream(ArenaPaths.stream(eventId), { [ARENA_PUSH_EVENT]: refetch }, refetch);
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
