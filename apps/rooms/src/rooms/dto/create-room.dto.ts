import { AppError, type CreateRoomBody, ROOM_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import {
  type GameType,
  type TurnDuration,
  validateCreatePasscode,
  validateDuration,
  validateGameType,
} from '@oasis198/game-rules';

export interface CreateRoomInput {
  gameType: GameType;
  duration: TurnDuration;
  passCode: string;
  aiOpponent: boolean;
}

const CREATE_FIELDS = new Set(['gameType', 'createdBy', 'duration', 'passCode', 'aiOpponent']);
const AI_OPPONENT_MESSAGE = 'aiOpponent must be true or false.';

/**
 * SPEC §5 on create, with the engine's validators and messages. Identity comes from the token:
 * a createdBy.id that is not the caller is refused (403); the creator's name is the caller's.
 */
export function parseCreateRoom(body: unknown, caller: TokenClaims): CreateRoomInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('VALIDATION', 'Send gameType, createdBy, duration and passCode.');
  }
  const input = body as Partial<Record<keyof CreateRoomBody, unknown>>;
  for (const key of Object.keys(input)) {
    if (!CREATE_FIELDS.has(key)) throw new AppError('VALIDATION', `${ROOM_MESSAGES.unknownField} ${key}`);
  }
  const createdBy = input.createdBy as { id?: unknown } | undefined;
  if (typeof createdBy !== 'object' || createdBy === null || typeof createdBy.id !== 'string') {
    throw new AppError('VALIDATION', 'createdBy.id is required.', { createdBy: 'createdBy.id is required.' });
  }
  if (createdBy.id !== caller.userId) throw new AppError('FORBIDDEN', ROOM_MESSAGES.identityMismatch);

  const details: Record<string, string> = {};
  const gameType = validateGameType(input.gameType);
  const duration = validateDuration(input.duration);
  const passCode = validateCreatePasscode(input.passCode);
  if (gameType) details['gameType'] = gameType;
  if (duration) details['duration'] = duration;
  if (passCode) details['passCode'] = passCode;
  if (input.aiOpponent !== undefined && typeof input.aiOpponent !== 'boolean') {
    details['aiOpponent'] = AI_OPPONENT_MESSAGE;
  }
  const first = Object.values(details)[0];
  if (first) throw new AppError('VALIDATION', first, details);
  return {
    gameType: input.gameType as GameType,
    duration: input.duration as TurnDuration,
    passCode: (input.passCode as string | undefined) ?? '',
    aiOpponent: input.aiOpponent === true,
  };
}
