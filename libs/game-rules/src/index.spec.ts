import * as api from './index';

describe('public API', () => {
  it('exports the engine, helpers and constants other projects code against', () => {
    const names = [
      'startGame',
      'applyMove',
      'applyTimeout',
      'applyLeave',
      'markReady',
      'initialGameState',
      'seatToMove',
      'currentTurn',
      'parseMoveIntent',
      'isTurnExpired',
      'timeoutAt',
      'abandonedAt',
      'postGameExpiry',
      'aiNumber',
      'drawPick',
      'drawSpecialRandom',
      'verifyGame',
      'offeredOptions',
      'usableOptions',
      'roomLabel',
      'milestones',
      'statusBanner',
      'remainingSeconds',
      'isWeak',
      'toSpecSeconds',
      'fromSpecSeconds',
      'validateRegistration',
      'validateLogin',
      'rewardFor',
      'levelStatusFor',
      'premiumCategoryOf',
      'aiCommitOf',
      'isAiSeed',
      'verifyAiNumbers',
    ];
    for (const name of names) expect(typeof (api as Record<string, unknown>)[name]).toBe('function');
    expect(api.WINNING_TOTAL).toBe(198);
    expect(api.MOVE_LIMIT).toBe(250);
  });
});
