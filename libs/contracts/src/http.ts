import type { z } from 'zod';
import { errorEnvelopeSchema } from './errors';

/** The HTTP API of SPEC §7, as the gateway serves it and the web app calls it. */
export const API_PREFIX = '/api';

export const ApiPaths = {
  login: '/api/users/login',
  register: '/api/users/',
  editUser: '/api/users/edit',
  deleteUser: '/api/users/delete',
  logout: '/api/users/logout',
  /** DECISIONS "Forgotten password": the mailed link, and the reset through it. */
  forgotPassword: '/api/users/forgot-password',
  resetPassword: '/api/users/reset-password',
  rooms: '/api/rooms/',
  myRoom: '/api/rooms/mine',
  /** Seats the caller in the oldest open room with a free spot, or opens one. */
  playNow: '/api/rooms/play-now',
  room: (id: string) => `/api/rooms/${encodeURIComponent(id)}`,
  editRoom: (id: string) => `/api/rooms/${encodeURIComponent(id)}/edit`,
  deleteRoom: (id: string) => `/api/rooms/${encodeURIComponent(id)}/delete`,
  rewards: '/api/rewards/',
  reward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}`,
  editReward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}/edit`,
  deleteReward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}/delete`,
  /** A player's last games, and one of them with its moves. */
  playedGames: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}/games`,
  playedGame: (userId: string, gameId: string) =>
    `/api/rewards/${encodeURIComponent(userId)}/games/${encodeURIComponent(gameId)}`,
  /** Server-Sent Events: the leaderboard changed (a game was paid). */
  leaderboardStream: '/api/rewards/stream',
  /** Server-Sent Events: the room list changes. */
  roomListStream: '/api/rooms/stream',
  /** Server-Sent Events: one room's state. */
  roomStream: (id: string) => `/api/rooms/${encodeURIComponent(id)}/stream`,
  health: '/health',
  metrics: '/metrics',
  docs: '/api/docs',
} as const;

/**
 * The JSON body of every HTTP error: the envelope without retryAfterS, which travels as the
 * Retry-After header.
 */
export const httpErrorBodySchema = errorEnvelopeSchema
  .omit({ retryAfterS: true })
  .meta({ description: 'The body of every error answer.' });
export type HttpErrorBody = z.infer<typeof httpErrorBodySchema>;

/** Largest JSON body the gateway accepts; larger ones get 413. */
export const MAX_BODY_BYTES = 100 * 1024;
