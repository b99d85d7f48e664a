import { AppError, ROOM_MESSAGES, type TokenClaims } from '@oasis198/contracts';
import { isSeat, type MoveIntent, parseMoveIntent, type Seat } from '@oasis198/game-rules';

/** What a PATCH /api/rooms/{id}/edit body asks for, once parsed. */
export type EditIntent =
  | { kind: 'join'; passCode: unknown }
  | { kind: 'leave' }
  | { kind: 'ready'; seat: Seat }
  | { kind: 'move'; move: MoveIntent };

const TOP_LEVEL = new Set(['players', 'passCode', 'whosTurnReadyPlayer', 'move']);
const INTENTS = ['players', 'whosTurnReadyPlayer', 'move'] as const;

const bad = (message: string) => new AppError('VALIDATION', message);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw bad(`${ROOM_MESSAGES.unknownField} ${where}.${key}`);
  }
}

/**
 * Parses the raw edit body (the gateway checks its shape; this service judges it). Exactly one
 * intent: join, leave, ready or move. A raw whosTurn write is refused: clients never write game
 * state. A playerId that is not the caller is refused (403): identity comes from the token.
 */
export function parseEditIntent(body: unknown, caller: TokenClaims): EditIntent {
  if (!isObject(body)) throw bad(ROOM_MESSAGES.oneIntent);
  if ('whosTurn' in body) throw bad(ROOM_MESSAGES.rawWhosTurn);
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.has(key)) throw bad(`${ROOM_MESSAGES.unknownField} ${key}`);
  }
  const present = INTENTS.filter((key) => body[key] !== undefined);
  if (present.length !== 1) throw bad(ROOM_MESSAGES.oneIntent);
  const [intent] = present;
  if (intent !== 'players' && body['passCode'] !== undefined) throw bad(ROOM_MESSAGES.oneIntent);

  switch (intent) {
    case 'players': {
      const players = body['players'];
      if (!isObject(players) || typeof players['playerId'] !== 'string') {
        throw bad('players.playerId is required.');
      }
      if (players['playerId'] !== caller.userId)
        throw new AppError('FORBIDDEN', ROOM_MESSAGES.identityMismatch);
      if (players['removePlayer'] !== undefined) {
        onlyKeys(players, ['playerId', 'removePlayer'], 'players');
        if (players['removePlayer'] !== true) throw bad('players.removePlayer must be true to leave.');
        if (body['passCode'] !== undefined) throw bad(ROOM_MESSAGES.oneIntent);
        return { kind: 'leave' };
      }
      onlyKeys(players, ['playerId', 'playerName'], 'players');
      if (players['playerName'] !== undefined && typeof players['playerName'] !== 'string') {
        throw bad('players.playerName must be a string.');
      }
      const passCode = body['passCode'];
      if (passCode !== undefined && typeof passCode !== 'string') throw bad('passCode must be a string.');
      return { kind: 'join', passCode };
    }
    case 'whosTurnReadyPlayer': {
      const ready = body['whosTurnReadyPlayer'];
      if (!isObject(ready)) throw bad('whosTurnReadyPlayer must name player1 or player2.');
      const seats = Object.keys(ready);
      const [seat] = seats;
      if (seats.length !== 1 || !isSeat(seat)) throw bad('whosTurnReadyPlayer must name player1 or player2.');
      const flags = ready[seat];
      if (!isObject(flags) || flags['turn'] !== false || flags['restart'] !== true) {
        throw bad(`whosTurnReadyPlayer.${seat} must be { "turn": false, "restart": true }.`);
      }
      onlyKeys(flags, ['turn', 'restart'], `whosTurnReadyPlayer.${seat}`);
      return { kind: 'ready', seat };
    }
    case 'move': {
      const move = body['move'];
      if (isObject(move)) onlyKeys(move, ['number', 'option'], 'move');
      const parsed = parseMoveIntent(move);
      if (!parsed.ok) throw bad(parsed.message);
      return { kind: 'move', move: parsed.intent };
    }
    default:
      throw bad(ROOM_MESSAGES.oneIntent);
  }
}
