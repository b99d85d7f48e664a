import {
  ApiPaths,
  LEADERBOARD_PUSH_EVENT,
  type PlayedGame,
  type RankedReward,
  type RewardPage,
  REWARDS_PAGE_SIZE,
} from '@oasis198/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { keys } from './cache';
import { isApiError } from './client';
import { api } from './endpoints';
import { retryTransient } from './hooks';
import { useEventStream } from './push';

/** SPEC §4: the profile retries a network failure after 10 s. */
export const PROFILE_RETRY_MS = 10_000;
/** While the leaderboard's push stream is not open, the page refreshes this often instead. */
export const LEADERBOARD_POLL_MS = 15_000;

/** The profile record. A network failure is retried every 10 s until it answers (SPEC §4). */
export function useReward(userId: string | undefined) {
  return useQuery<RankedReward>({
    queryKey: keys.reward(userId ?? ''),
    enabled: userId !== undefined,
    queryFn: ({ signal }) => api.reward(userId as string, signal),
    retry: (_count, error) => isApiError(error) && (error.isNetwork || error.status >= 500),
    retryDelay: PROFILE_RETRY_MS,
  });
}

/** One page of the leaderboard (GET /api/rewards/), ranked by points, then wins, then name. */
export function useLeaderboard(page: number, live: boolean) {
  return useQuery<RewardPage>({
    queryKey: keys.leaderboard(page),
    queryFn: async ({ signal }) => {
      const { items, total } = await api.leaderboard(page, REWARDS_PAGE_SIZE, signal);
      return { rewards: items, total, page, pageSize: REWARDS_PAGE_SIZE };
    },
    placeholderData: keepPreviousData,
    refetchInterval: live ? false : LEADERBOARD_POLL_MS,
    retry: retryTransient,
  });
}

/**
 * The leaderboard's live stream: after games are paid, the pages and the records (with their
 * ranks) shown are fetched again; so they are when the stream (re)opens, to cover the gap.
 * Returns whether it is open.
 */
export function useLeaderboardStream(): boolean {
  const client = useQueryClient();
  const refetch = (): void => {
    void client.invalidateQueries({ queryKey: keys.leaderboardAll });
    void client.invalidateQueries({ queryKey: keys.rewardAll });
  };
  return useEventStream(ApiPaths.leaderboardStream, { [LEADERBOARD_PUSH_EVENT]: refetch }, refetch);
}

/** A player's last games (GET /api/rewards/{userId}/games), newest first. */
export function useGameHistory(userId: string | undefined) {
  return useQuery<PlayedGame[]>({
    queryKey: keys.games(userId ?? ''),
    enabled: userId !== undefined,
    queryFn: ({ signal }) => api.playedGames(userId as string, signal),
    retry: retryTransient,
  });
}

/** Fetches one game of a player's history with every move, to replay it. */
export function usePlayedGame(userId: string) {
  return useMutation({ mutationFn: (gameId: string) => api.playedGame(userId, gameId) });
}
