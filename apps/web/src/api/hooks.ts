import type { AuthUser, CreateRoomBody, EditRoomBody, EditUserBody, RoomView } from '@oasis198/contracts';
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { getConfig, gifServiceEnabled } from '../config';
import { acceptRoom, keys, mergeFetchedRoom, noteRoomPage, type RoomListPage } from './cache';
import { ApiError, isApiError } from './client';
import { api } from './endpoints';
import { roomSocket } from './room-socket';
import { withReauth } from './reauth';
import { getSession, setSession } from './session';

/** SPEC §4/§9: the room list and a room refresh every 5 s when no push stream is open. */
export const POLL_MS = 5_000;
/** SPEC §7: the GIF overlay refreshes every 3 s. */
export const GIF_REFRESH_MS = 3_000;

const notFound = (error: unknown): boolean => isApiError(error) && error.status === 404;

/** Retries a read twice on network or server trouble, never on a 4xx answer. */
export function retryTransient(failureCount: number, error: unknown): boolean {
  if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

// ---------------------------------------------------------------- rooms

export function useRoomList(page: number, freeSpot: boolean, live: boolean) {
  const client = useQueryClient();
  return useQuery<RoomListPage>({
    queryKey: keys.roomList(page, freeSpot),
    queryFn: async ({ signal }) => {
      const result = await api.rooms(page, freeSpot, signal);
      noteRoomPage(client, result);
      return result;
    },
    placeholderData: keepPreviousData,
    refetchInterval: live ? false : POLL_MS,
    retry: retryTransient,
  });
}

/** The logged-in user's own room; null when they are in none (the API answers 404). */
export function useMyRoom(user: AuthUser | null, live: boolean) {
  const client = useQueryClient();
  return useQuery<RoomView | null>({
    queryKey: keys.myRoom(user?._id),
    enabled: user !== null,
    queryFn: async ({ signal }) => {
      try {
        const room = await api.myRoom(signal);
        acceptRoom(client, room);
        return room;
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    refetchInterval: live ? false : POLL_MS,
    retry: retryTransient,
  });
}

export function useRoom(roomId: string, live: boolean) {
  const client = useQueryClient();
  return useQuery<RoomView>({
    queryKey: keys.room(roomId),
    queryFn: async ({ signal }) => mergeFetchedRoom(client, await api.room(roomId, signal)),
    refetchInterval: live ? false : POLL_MS,
    retry: retryTransient,
  });
}

function refreshRoomLists(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: keys.rooms });
  void client.invalidateQueries({ queryKey: keys.myRoomAll });
}

export function useCreateRoom() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateRoomBody) => api.createRoom(body),
    onSuccess: (room) => {
      acceptRoom(client, room);
      refreshRoomLists(client);
    },
  });
}

/** Play now: the server seats the caller (or opens a room for them) and answers the room. */
export function usePlayNow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.playNow(),
    onSuccess: (room) => {
      acceptRoom(client, room);
      refreshRoomLists(client);
    },
  });
}

/**
 * Join, leave, ready and move: the room's intents (DECISIONS.md). The server's answer is shown.
 * The room socket opens with the screen, so the first intent can take it.
 */
export function useRoomIntent(roomId: string) {
  const client = useQueryClient();
  useEffect(() => roomSocket.prepare(), []);
  return useMutation({
    mutationFn: (body: EditRoomBody) => api.editRoom(roomId, body),
    onSuccess: ({ room }, body) => {
      acceptRoom(client, room);
      if ('players' in body) refreshRoomLists(client);
    },
  });
}

// ---------------------------------------------------------------- accounts

export function useLogin() {
  return useMutation({
    mutationFn: api.login,
    onSuccess: (user, body) =>
      setSession({ _id: user._id, name: user.name, token: user.token, email: body.email }),
  });
}

/** Registers, stores the user and creates the reward record (SPEC §4; the call is idempotent). */
export function useRegister() {
  return useMutation({
    mutationFn: async (body: Parameters<typeof api.register>[0]) => {
      const user = await api.register(body);
      setSession({ _id: user._id, name: user.name, token: user.token, email: body.email });
      try {
        await api.createReward({ playerId: user._id, playerName: user.name });
      } catch {
        // The server creates the record from the registration event as well.
      }
      return user;
    },
  });
}

/**
 * Edits one field; a new name is copied to the reward record too (SPEC §4). An e-mail or password
 * change may first need the password again (withReauth).
 */
export function useEditUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: EditUserBody) => {
      const { user } = await withReauth(() => api.editUser(body));
      // Read after the change: a re-authentication in between brought a fresh token.
      const before = getSession();
      const id = before?._id ?? user._id;
      setSession({ _id: id, name: user.name, token: user.token || before?.token || '', email: user.email });
      if ('name' in body) {
        try {
          await api.editReward(id, user.name);
        } catch {
          // The rewards service also renames the record from the user.renamed event.
        }
      }
      return user;
    },
    onSettled: () => client.invalidateQueries({ queryKey: keys.rewardAll }),
  });
}

function forgetUser(client: QueryClient): void {
  setSession(null);
  client.removeQueries({ queryKey: keys.rewardAll });
  client.removeQueries({ queryKey: keys.myRoomAll });
  client.removeQueries({ queryKey: keys.gamesAll });
}

/** Ends the session after the server refused the user (e.g. their record is gone): revoke, then forget. */
export function useEndSession(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(async () => {
    try {
      await api.logout();
    } catch {
      // The token may already be invalid; the local session ends either way.
    }
    forgetUser(client);
  }, [client]);
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await api.logout();
      } catch (error) {
        // An already refused token means the session is over anyway.
        if (!(isApiError(error) && error.status === 401)) throw error;
      }
    },
    onSuccess: () => forgetUser(client),
  });
}

/**
 * Deletes the user (after the password again, when the login is not recent: withReauth), then the
 * reward record (best effort: the server deletes it with the user).
 */
export function useDeleteUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const user = getSession();
      await withReauth(() => api.deleteUser());
      if (user) {
        try {
          await api.deleteReward(user._id);
        } catch {
          // The token is revoked with the account; the rewards service removes the record itself.
        }
      }
    },
    onSuccess: () => forgetUser(client),
  });
}

// ---------------------------------------------------------------- GIF service

/** Builds the GIF categories URL: `{key}` replaced, locale en_US added (SPEC §7). */
export function gifCategoriesUrl(template: string, key: string): string {
  const withKey = template.split('{key}').join(encodeURIComponent(key));
  if (/[?&]locale=/.test(withKey)) return withKey;
  return `${withKey}${withKey.includes('?') ? '&' : '?'}locale=en_US`;
}

function previewUrls(payload: unknown): string[] {
  const body = payload as { data?: { categories?: unknown }; categories?: unknown } | undefined;
  const categories = body?.data?.categories ?? body?.categories;
  if (!Array.isArray(categories)) return [];
  return categories
    .map((c) => (c as { preview_url?: unknown } | null)?.preview_url)
    .filter((u): u is string => typeof u === 'string' && /^https:\/\//.test(u));
}

/**
 * A random preview image of the GIF service, refreshed every 3 s while `active`. Without a
 * configured key it is disabled and no third-party call is ever made.
 */
export function useWaitingGif(active: boolean) {
  const config = getConfig();
  const enabled = active && gifServiceEnabled(config);
  const url = enabled ? gifCategoriesUrl(config.gifCategoriesUrl, config.gifApiKey) : '';
  return useQuery({
    queryKey: keys.gif(url),
    enabled,
    queryFn: async ({ signal }) => {
      const urls = previewUrls(await api.gifCategories(url, signal));
      if (urls.length === 0) throw new ApiError(502, 'No images', 'EXTERNAL');
      return urls[Math.floor(Math.random() * urls.length)] as string;
    },
    refetchInterval: GIF_REFRESH_MS,
    retry: false,
    staleTime: 0,
  });
}
