import { refuse } from './result';

describe('refuse', () => {
  it('builds a refusal naming the rule and its message', () => {
    expect(refuse('game-over', 'The game is over.')).toEqual({
      ok: false,
      rule: 'game-over',
      message: 'The game is over.',
    });
  });
});
