import { ApiPaths, roomGonePushDataSchema, roomSummarySchema } from '@oasis198/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useState } from 'react';
import { acceptRoom, acceptRoomMoves, applyRoomToLists, keys, markRoomDeleted } from './cache';

/** Reconnect delays after the browser gave up on a stream (it retries transient drops itself). */
const RECONNECT_MS = [2_000, 5_000, 15_000, 30_000] as const;

type Handlers = Record<string, (data: unknown, lastEventId: string) => void>;

function parse(data: unknown): unknown {
  if (typeof data !== 'string') return undefined;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Subscribes to a Server-Sent Events stream while `url` is set. Returns whether the stream is
 * open right now; callers poll while it is not. Where EventSource does not exist (old browsers,
 * tests without a fake) it simply stays closed.
 */
export function useEventStream(url: string | null, handlers: Handlers, onOpen?: () => void): boolean {
  const [openUrl, setOpenUrl] = useState<string | null>(null);
  const dispatch = useEffectEvent((type: string, event: MessageEvent) => {
    handlers[type]?.(parse(event.data), event.lastEventId);
  });
  const opened = useEffectEvent(() => onOpen?.());
  const types = Object.keys(handlers).sort().join(',');

  useEffect(() => {
    if (url === null || typeof EventSource === 'undefined') return undefined;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let stopped = false;

    const connect = (): void => {
      source = new EventSource(url);
      source.onopen = () => {
        attempt = 0;
        setOpenUrl(url);
        opened();
      };
      source.onerror = () => {
        setOpenUrl(null);
        if (source?.readyState === 2 && !stopped) {
          source.close();
          const delay = RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)];
          attempt += 1;
          timer = setTimeout(connect, delay);
        }
      };
      for (const type of types.split(',')) {
        source.addEventListener(type, (event) => dispatch(type, event as MessageEvent));
      }
    };
    connect();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
      setOpenUrl(null);
    };
  }, [url, types]);

  return url !== null && openUrl === url;
}

/**
 * One room's live state. `room` pushes go into the query cache (older versions are ignored), and
 * so do `room-moves` pushes, put together with the cached room; a `room-deleted` push calls
 * `onDeleted` with the server's reason.
 */
export function useRoomStream(roomId: string, onDeleted: (reason: string) => void): boolean {
  const client = useQueryClient();
  return useEventStream(
    ApiPaths.roomStream(roomId),
    {
      room: (data) => {
        if ((data as { _id?: unknown } | undefined)?._id === roomId) acceptRoom(client, data);
      },
      // A change within the game: only the new moves come; without the moves before them, read the room.
      'room-moves': (data) => {
        if ((data as { _id?: unknown } | undefined)?._id !== roomId) return;
        if (acceptRoomMoves(client, data) === 'refetch')
          void client.invalidateQueries({ queryKey: keys.room(roomId) });
      },
      'room-deleted': (data) => {
        const gone = roomGonePushDataSchema.safeParse(data);
        if (!gone.success || gone.data.roomId !== roomId) return;
        if (markRoomDeleted(client, roomId, gone.data.version)) {
          void client.invalidateQueries({ queryKey: keys.rooms });
          void client.invalidateQueries({ queryKey: keys.myRoomAll });
          onDeleted(gone.data.reason);
        }
      },
    },
    () => void client.invalidateQueries({ queryKey: keys.room(roomId) }),
  );
}

/**
 * The room list's live changes, as room summaries (the list stream sends no game state): moves
 * patch the cached pages, arrivals and departures refetch them.
 */
export function useRoomListStream(): boolean {
  const client = useQueryClient();
  const refetchLists = (): void => {
    void client.invalidateQueries({ queryKey: keys.rooms });
    void client.invalidateQueries({ queryKey: keys.myRoomAll });
  };
  return useEventStream(
    ApiPaths.roomListStream,
    {
      room: (data) => {
        // The list stream's `room` data is a room's summary (contracts' roomSummarySchema).
        const summary = roomSummarySchema.safeParse(data);
        if (summary.success && applyRoomToLists(client, summary.data) === 'refetch') refetchLists();
      },
      'room-deleted': (data) => {
        const gone = roomGonePushDataSchema.safeParse(data);
        if (gone.success && markRoomDeleted(client, gone.data.roomId, gone.data.version)) refetchLists();
      },
    },
    refetchLists,
  );
}
