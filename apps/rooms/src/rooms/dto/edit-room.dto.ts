import {
  AppError,
  editRoomBodySchema,
  parseWith,
  ROOM_MESSAGES,
  type TokenClaims,
} from '@oasis198/contracts';
import type { MoveIntent, Seat } from '@oasis198/game-rules';

/** What a PATCH /api/rooms/{id}/edit body asks for, once parsed. */
export type EditIntent =
  | { kind: 'join'; passCode: string | undefined }
  | { kind: 'leave' }
  | { kind: 'ready'; seat: Seat }
  | { kind: 'move'; move: MoveIntent };

/**
 * Parses the raw edit body by the contracts schema (the gateway checks it with the same one; this
 * service judges it). Exactly one intent: join, leave, ready or move. A raw whosTurn write is
 * refused: clients never write game state. A playerId that is not the caller is refused (403):
 * identity comes from the token.
 */
export function parseEditIntent(input: unknown, caller: TokenClaims): EditIntent {
  const body = parseWith(editRoomBodySchema, input);
  if ('players' in body) {
    if (body.players.playerId !== caller.userId)
      throw new AppError('FORBIDDEN', ROOM_MESSAGES.identityMismatch);
    if ('removePlayer' in body.players) return { kind: 'leave' };
    return { kind: 'join', passCode: 'passCode' in body ? body.passCode : undefined };
  }
  if ('whosTurnReadyPlayer' in body) {
    return { kind: 'ready', seat: body.whosTurnReadyPlayer.player1 ? 'player1' : 'player2' };
  }
  return { kind: 'move', move: { number: body.move.number, option: body.move.option ?? 'plain' } };
}
