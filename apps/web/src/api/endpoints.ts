import {
  ApiPaths,
  type AuthUser,
  type CreateRewardBody,
  type CreateRoomBody,
  type EditRewardResponse,
  type EditRoomBody,
  type EditRoomResponse,
  type EditUserBody,
  type EditUserResponse,
  type ForgotPasswordBody,
  type LoginBody,
  type MessageResponse,
  type PlayedGame,
  type PlayedGameDetail,
  type RankedReward,
  type RegisterBody,
  type ResetPasswordBody,
  type RewardView,
  type RoomView,
} from '@oasis198/contracts';
import type { RoomListPage } from './cache';
import { apiPage, apiRequest, externalJson } from './client';
import { roomSocket } from './room-socket';

/** SPEC §7's calls, one function each, with the shapes of libs/contracts. */
export const api = {
  login: (body: LoginBody) => apiRequest<AuthUser>(ApiPaths.login, { method: 'POST', body }),
  register: (body: RegisterBody) => apiRequest<AuthUser>(ApiPaths.register, { method: 'POST', body }),
  editUser: (body: EditUserBody) =>
    apiRequest<EditUserResponse>(ApiPaths.editUser, { method: 'PATCH', body, auth: true }),
  deleteUser: () => apiRequest<MessageResponse>(ApiPaths.deleteUser, { method: 'DELETE', auth: true }),
  logout: () => apiRequest<MessageResponse>(ApiPaths.logout, { method: 'POST', auth: true }),
  forgotPassword: (body: ForgotPasswordBody) =>
    apiRequest<MessageResponse>(ApiPaths.forgotPassword, { method: 'POST', body }),
  resetPassword: (body: ResetPasswordBody) =>
    apiRequest<MessageResponse>(ApiPaths.resetPassword, { method: 'POST', body }),

  reward: (userId: string, signal?: AbortSignal) =>
    apiRequest<RankedReward>(ApiPaths.reward(userId), { signal }),
  createReward: (body: CreateRewardBody) =>
    apiRequest<RewardView>(ApiPaths.rewards, { method: 'POST', body, auth: true }),
  editReward: (userId: string, playerName: string) =>
    apiRequest<EditRewardResponse>(ApiPaths.editReward(userId), {
      method: 'PATCH',
      body: { playerName },
      auth: true,
    }),
  deleteReward: (userId: string) =>
    apiRequest<MessageResponse>(ApiPaths.deleteReward(userId), { method: 'DELETE', auth: true }),
  /** The leaderboard: one page of ranked records, and how many there are in all. */
  leaderboard: (page: number, pageSize: number, signal?: AbortSignal) =>
    apiPage<RankedReward>(`${ApiPaths.rewards}?page=${page}&pageSize=${pageSize}`, signal),
  playedGames: (userId: string, signal?: AbortSignal) =>
    apiRequest<PlayedGame[]>(ApiPaths.playedGames(userId), { signal }),
  playedGame: (userId: string, gameId: string, signal?: AbortSignal) =>
    apiRequest<PlayedGameDetail>(ApiPaths.playedGame(userId, gameId), { signal }),

  /** A page of rooms (SPEC §7's list), with how many match in all. */
  rooms: async (page: number, freeSpot: boolean, signal?: AbortSignal): Promise<RoomListPage> => {
    const { items, total } = await apiPage<RoomView>(
      `${ApiPaths.rooms}?page=${page}&freeSpot=${freeSpot}`,
      signal,
    );
    return { rooms: items, total };
  },
  myRoom: (signal?: AbortSignal) => apiRequest<RoomView>(ApiPaths.myRoom, { auth: true, signal }),
  room: (roomId: string, signal?: AbortSignal) => apiRequest<RoomView>(ApiPaths.room(roomId), { signal }),
  /** Play now: a seat in the oldest open room, or a room of one's own (the caller's room if they have one). */
  playNow: () => apiRequest<RoomView>(ApiPaths.playNow, { method: 'POST', auth: true }),
  createRoom: (body: CreateRoomBody) =>
    apiRequest<RoomView>(ApiPaths.rooms, { method: 'POST', body, auth: true }),
  /** Over the room socket when it is open, else PATCH .../edit (room-socket.ts). */
  editRoom: (roomId: string, body: EditRoomBody): Promise<EditRoomResponse> => roomSocket.edit(roomId, body),
  deleteRoom: (roomId: string) =>
    apiRequest<MessageResponse>(ApiPaths.deleteRoom(roomId), { method: 'DELETE', auth: true }),

  /** SPEC §7 "External": the GIF service's categories, only when an operator configured a key. */
  gifCategories: (url: string, signal?: AbortSignal) => externalJson(url, signal),
};
