import {
  AppError,
  createRoomBodySchema,
  parseWith,
  ROOM_MESSAGES,
  type TokenClaims,
} from '@oasis198/contracts';
import type { GameType, TurnDuration } from '@oasis198/game-rules';

export interface CreateRoomInput {
  gameType: GameType;
  duration: TurnDuration;
  passCode: string;
  aiOpponent: boolean;
}

/**
 * SPEC §5 on create, by the contracts schema (the engine's rules and messages). Identity comes
 * from the token: a createdBy.id that is not the caller is refused (403); the creator's name is
 * the caller's.
 */
export function parseCreateRoom(body: unknown, caller: TokenClaims): CreateRoomInput {
  const input = parseWith(createRoomBodySchema, body);
  if (input.createdBy.id !== caller.userId) throw new AppError('FORBIDDEN', ROOM_MESSAGES.identityMismatch);
  return {
    gameType: input.gameType,
    duration: input.duration,
    passCode: input.passCode ?? '',
    aiOpponent: input.aiOpponent ?? false,
  };
}
