import type { INestApplication } from '@nestjs/common';
import { type EditRoomResponse, Requests, type RoomView, type TokenClaims } from '@oasis198/contracts';
import { createService, RpcClient } from '@oasis198/service-kit';
import { serviceTestEnv, type TestInfra, uniqueName } from '@oasis198/testing';
import { roomsDefinition } from '../rooms.definition';

/** For the integration tests only (not used by the service itself). */

/** A caller's claims as the gateway forwards them: a fresh user id, an hour to go. */
export const testCaller = (name: string): TokenClaims => ({
  userId: uniqueName(name),
  name,
  jti: uniqueName('jti'),
  exp: Math.floor(Date.now() / 1000) + 3600,
});

/**
 * The rooms requests over NATS as the gateway sends them. `rpc` is read at each call, so a
 * suite can build the client before its beforeAll connects.
 */
export function roomsClient(rpc: () => RpcClient) {
  const call = <T>(subject: string, payload: unknown) => rpc().request<T>(subject, payload, 10_000);
  const create = (caller: TokenClaims, body: Record<string, unknown> = {}) =>
    call<RoomView>(Requests.rooms.create, {
      caller,
      body: {
        gameType: 'quick-battle',
        createdBy: { id: caller.userId, name: caller.name },
        duration: 32,
        passCode: '',
        ...body,
      },
    });
  const edit = (caller: TokenClaims, roomId: string, body: unknown) =>
    call<EditRoomResponse>(Requests.rooms.edit, { caller, roomId, body }).then((r) => r.room);
  const join = (caller: TokenClaims, roomId: string, passCode?: string) =>
    edit(caller, roomId, { players: { playerId: caller.userId, playerName: caller.name }, passCode });
  const move = (caller: TokenClaims, roomId: string, number: unknown, option = 'plain') =>
    edit(caller, roomId, { move: { number, option } });
  return { call, create, edit, join, move };
}

/** A suite's rooms settings: serviceTestEnv's with warn logs, then `overrides`. */
export function roomsTestEnv(
  infra: TestInfra,
  name: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return serviceTestEnv(infra, name, { LOG_LEVEL: 'warn', ...overrides });
}

/** Starts the rooms service with `env`, and an RPC client of the test named `clientName`. */
export async function startRooms(
  env: Record<string, string>,
  clientName: string,
): Promise<{ app: INestApplication; rpc: RpcClient }> {
  const { app } = await createService(roomsDefinition, env);
  const rpc = await RpcClient.forTests(env['NATS_URL'] as string, clientName);
  return { app, rpc };
}
