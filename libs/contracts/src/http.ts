/** The HTTP API of SPEC §7, as the gateway serves it and the web app calls it. */
export const API_PREFIX = '/api';

export const ApiPaths = {
  login: '/api/users/login',
  register: '/api/users/',
  editUser: '/api/users/edit',
  deleteUser: '/api/users/delete',
  logout: '/api/users/logout',
  rooms: '/api/rooms/',
  myRoom: '/api/rooms/mine',
  room: (id: string) => `/api/rooms/${encodeURIComponent(id)}`,
  editRoom: (id: string) => `/api/rooms/${encodeURIComponent(id)}/edit`,
  deleteRoom: (id: string) => `/api/rooms/${encodeURIComponent(id)}/delete`,
  rewards: '/api/rewards/',
  reward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}`,
  editReward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}/edit`,
  deleteReward: (userId: string) => `/api/rewards/${encodeURIComponent(userId)}/delete`,
  /** Server-Sent Events: the room list changes. */
  roomListStream: '/api/rooms/stream',
  /** Server-Sent Events: one room's state. */
  roomStream: (id: string) => `/api/rooms/${encodeURIComponent(id)}/stream`,
  health: '/health',
  metrics: '/metrics',
  docs: '/api/docs',
} as const;

/** The JSON body of every HTTP error. */
export interface HttpErrorBody {
  message: string;
  code: string;
  details?: Record<string, string>;
}

/** Largest JSON body the gateway accepts; larger ones get 413. */
export const MAX_BODY_BYTES = 100 * 1024;
