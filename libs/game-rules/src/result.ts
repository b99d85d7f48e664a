/** Every rule an intent can break. A refusal names one of these and never changes state. */
export type RefusalRule =
  | 'game-not-started'
  | 'game-over'
  | 'game-not-over'
  | 'not-a-player'
  | 'not-your-turn'
  | 'pick-out-of-range'
  | 'unknown-option'
  | 'option-not-offered'
  | 'option-used-up'
  | 'random-unavailable'
  | 'turn-expired'
  | 'timeout-not-due'
  | 'stale-turn'
  | 'ready-window-closed'
  | 'no-ai-seed';

export interface Refusal {
  readonly ok: false;
  readonly rule: RefusalRule;
  readonly message: string;
}

export function refuse(rule: RefusalRule, message: string): Refusal {
  return { ok: false, rule, message };
}
