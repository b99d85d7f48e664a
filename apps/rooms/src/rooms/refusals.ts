import { AppError, type ErrorCode, ROOM_MESSAGES } from '@oasis198/contracts';
import type { Refusal, RefusalRule } from '@oasis198/game-rules';

/**
 * How an engine refusal reaches the client. A bad intent (pick, option, a turn already timed
 * out) is the client's mistake: 400. Acting out of turn or against the room's current state is a
 * conflict with what another player or the clock did meanwhile: 409. Not being a player: 403.
 */
const CODE_BY_RULE: Readonly<Record<RefusalRule, ErrorCode>> = {
  'pick-out-of-range': 'VALIDATION',
  'unknown-option': 'VALIDATION',
  'option-not-offered': 'VALIDATION',
  'option-used-up': 'VALIDATION',
  'random-unavailable': 'VALIDATION',
  'turn-expired': 'VALIDATION',
  'not-a-player': 'FORBIDDEN',
  'not-your-turn': 'CONFLICT',
  'game-not-started': 'CONFLICT',
  'game-over': 'CONFLICT',
  'game-not-over': 'CONFLICT',
  'ready-window-closed': 'CONFLICT',
  'timeout-not-due': 'CONFLICT',
  'stale-turn': 'CONFLICT',
  'no-ai-seed': 'CONFLICT',
};

export function refusalError(refusal: Refusal): AppError {
  const code = CODE_BY_RULE[refusal.rule];
  return new AppError(code, code === 'FORBIDDEN' ? ROOM_MESSAGES.notAPlayer : refusal.message);
}
