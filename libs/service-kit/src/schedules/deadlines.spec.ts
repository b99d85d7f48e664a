import {
  aiThinkMs,
  applyMove,
  applyTimeout,
  fromSpecSeconds,
  initialGameState,
  MOVE_LIMIT,
  toSpecSeconds,
  type GameState,
  type MoveRecord,
} from '@oasis198/game-rules';
import { roomView as view, sec, startedGame as started, T0 } from '@oasis198/testing';
import { deriveDeadlines } from './deadlines';

/** The game of started() after player 1's first move (a plain 4, 5 s in): player 2 to move. */
function afterFirstMove(): GameState {
  const moved = applyMove(
    started(),
    'player1',
    { number: 4, option: 'plain' },
    { duration: 14, nowMs: T0 + 5 * sec },
  );
  if (!moved.ok) throw new Error(moved.message);
  return moved.state;
}

describe('deriveDeadlines', () => {
  it('gives a running turn its timeout (1 ms after deadline + 1 s) and its abandonment (deadline + 60 s)', () => {
    const deadlines = deriveDeadlines(view(started()));
    expect(deadlines).toEqual([
      { kind: 'turn', dueAt: new Date(T0 + 19 * sec + 1), gameNumber: 1, moveIndex: 0 },
      { kind: 'abandoned', dueAt: new Date(T0 + 78 * sec), gameNumber: 1, moveIndex: 0 },
    ]);
  });

  it('moves the turn deadline with each move and names the new turn', () => {
    const [turn] = deriveDeadlines(view(afterFirstMove()));
    expect(turn).toEqual({ kind: 'turn', dueAt: new Date(T0 + 24 * sec + 1), gameNumber: 1, moveIndex: 1 });
  });

  it('gives a finished game only its post-game expiry at game over + 64 s', () => {
    const state = started();
    const ended = applyTimeout(state, { gameNumber: 1, moveIndex: 0 }, { nowMs: T0 + 20 * sec });
    if (!ended.ok) throw new Error(ended.message);
    expect(deriveDeadlines(view(ended.state))).toEqual([
      { kind: 'post-game', dueAt: new Date(T0 + 84 * sec), gameNumber: 1, moveIndex: 0 },
    ]);
  });

  it('gives a draw (the move limit: no winner, nobody holds the turn) its post-game expiry too', () => {
    const state = started();
    // The 250th move (player 2's) of a game nobody won: a draw.
    const earlier = (i: number): MoveRecord => ({
      player: i % 2 === 0 ? 'player1' : 'player2',
      number: 1,
      option: 'plain',
      aiNumber: 1,
      total: 0,
      at: state.turnStart,
    });
    const at249: GameState = {
      ...state,
      player1: { turn: false, restart: false },
      player2: { turn: true, restart: false },
      moves: Array.from({ length: MOVE_LIMIT - 1 }, (_, i) => earlier(i)),
    };
    const drawn = applyMove(
      at249,
      'player2',
      { number: 1, option: 'plain' },
      { duration: 14, nowMs: T0 + sec },
    );
    if (!drawn.ok) throw new Error(drawn.message);
    expect(drawn.state).toMatchObject({ gameOver: true, winner: null, endReason: 'moveLimit' });
    expect(deriveDeadlines(view(drawn.state))).toEqual([
      { kind: 'post-game', dueAt: new Date(T0 + 65 * sec), gameNumber: 1, moveIndex: MOVE_LIMIT },
    ]);
  });

  it('gives a room waiting with one player its expiry 10 minutes on, and nothing to an idle full room', () => {
    const waitingSince = toSpecSeconds(T0 + 1234);
    const waiting = view(initialGameState(), { players: [{ id: 'a', name: 'a' }], waitingSince });
    expect(deriveDeadlines(waiting)).toEqual([
      {
        kind: 'waiting',
        dueAt: new Date(fromSpecSeconds(waitingSince) + 600 * sec),
        gameNumber: 0,
        moveIndex: 0,
      },
    ]);
    expect(deriveDeadlines(view(initialGameState(), { players: [{ id: 'a', name: 'a' }] }))).toEqual([]);
    expect(deriveDeadlines(view(initialGameState()))).toEqual([]);
  });

  it('lets the AI take the empty seat when the snapshot says, before the waiting room expires', () => {
    const waitingSince = toSpecSeconds(T0);
    const deadlines = deriveDeadlines(
      view(initialGameState(), {
        players: [{ id: 'p1', name: 'p1' }],
        waitingSince,
        aiOpponent: true,
        aiJoinsAt: waitingSince + 30,
      }),
    );
    expect(deadlines.map((d) => [d.kind, d.dueAt.getTime()])).toEqual([
      ['ai-join', T0 + 30 * sec],
      ['waiting', T0 + 600 * sec],
    ]);
  });

  it("arms the AI's move at its think time on its own turn, and nothing of the kind on a person's turn", () => {
    const ai = { id: 'ai:room-1', name: 'AI' };
    const players = [{ id: 'p1', name: 'p1' }, ai];
    expect(deriveDeadlines(view(started(), { players })).map((d) => d.kind)).toEqual(['turn', 'abandoned']);
    const state = afterFirstMove();
    const room = view(state, { players });
    const [first, turn] = deriveDeadlines(room);
    expect(first).toEqual({
      kind: 'ai-move',
      dueAt: new Date(fromSpecSeconds(state.turnStart) + aiThinkMs(room._id, 1, 1)),
      gameNumber: 1,
      moveIndex: 1,
    });
    // A person's pace, and well before the AI's own turn would time out.
    const thinkMs = (first as { dueAt: Date }).dueAt.getTime() - fromSpecSeconds(state.turnStart);
    expect(thinkMs).toBeGreaterThanOrEqual(1200);
    expect(thinkMs).toBeLessThanOrEqual(3600);
    expect(turn).toMatchObject({ kind: 'turn', moveIndex: 1 });
  });
});
