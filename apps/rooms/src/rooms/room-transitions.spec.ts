import { type DeadlineDueRequest, type DeadlineKind, ROOM_MESSAGES } from '@oasis198/contracts';
import {
  applyMove,
  fromSpecSeconds,
  isAbortedGame,
  LATE_TOLERANCE,
  MOVE_LIMIT,
  POST_GAME_EXPIRY,
  toSpecSeconds,
  WAITING_ROOM_EXPIRY,
} from '@oasis198/game-rules';
import { expectAppError } from '@oasis198/testing';
import {
  alice,
  bob,
  carol,
  fixedRandom,
  fixedSeeds,
  NEXT_SEED,
  playBelow198,
  referenceAi,
  referenceCommit,
  SEED,
  T0,
  waitingRoom,
} from './room.fixtures';
import type { RoomRecord } from './room.schema';
import {
  isUnchanged,
  type Plan,
  planDeadline,
  planDelete,
  planJoin,
  planLeave,
  planMove,
  planReady,
  type Transition,
} from './room-transitions';
import { toRoomView } from './room-view';

const sec = 1000;

function changed(plan: Plan): Transition {
  if (isUnchanged(plan)) throw new Error('expected a change');
  return plan;
}

/** A room whose game has just started (alice player1 to move, bob player2), at T0. */
function startedRoom(overrides: Partial<RoomRecord> = {}): RoomRecord {
  return changed(planJoin(waitingRoom(overrides), bob, undefined, T0, fixedRandom())).next;
}

/** Plays plain 9s alternately, one a second from T0: the 22nd move (player 2) reaches 198. */
function finishedRoom(): RoomRecord {
  let room = startedRoom();
  let now = T0;
  while (!room.whosTurn.gameOver) {
    now += sec;
    const mover = room.whosTurn.player1.turn ? alice : bob;
    room = changed(planMove(room, mover.id, { number: 9, option: 'plain' }, now, fixedRandom())).next;
  }
  return room;
}

describe('joining', () => {
  it('starts the game at once when the second player arrives, player 1 to move', () => {
    const { next } = changed(planJoin(waitingRoom(), bob, undefined, T0, fixedRandom(0)));
    expect(next.players).toEqual([alice, bob]);
    expect(next.playerCount).toBe(2);
    expect(next.version).toBe(2);
    expect(next.waitingSince).toBeNull();
    expect(next.gameStarted).toBe(true);
    expect(next.whosTurn).toMatchObject({
      gameStarted: true,
      gameNumber: 1,
      specialRandom: 100000,
      currentNumber: 0,
    });
    expect(next.whosTurn.player1.turn).toBe(true);
    expect(next.gameStartedAt).toEqual(new Date(T0));
  });

  it('is a harmless repeat for a member, and refuses a third player with 409', () => {
    expect(isUnchanged(planJoin(waitingRoom(), alice, undefined, T0, fixedRandom()))).toBe(true);
    expect(expectAppError(() => planJoin(startedRoom(), carol, undefined, T0, fixedRandom()))).toEqual({
      code: 'ROOM_FULL',
      message: ROOM_MESSAGES.full,
    });
  });

  it('checks the passcode on the server', () => {
    const room = waitingRoom({ passCode: '0420' });
    expect(expectAppError(() => planJoin(room, bob, '1234', T0, fixedRandom()))).toEqual({
      code: 'FORBIDDEN',
      message: 'Oops, try again!',
    });
    expect(expectAppError(() => planJoin(room, bob, undefined, T0, fixedRandom())).code).toBe('FORBIDDEN');
    expect(changed(planJoin(room, bob, '0420', T0, fixedRandom())).next.players).toHaveLength(2);
  });
});

describe('moves', () => {
  it('applies the engine for the player to move and refuses the others', () => {
    const room = startedRoom();
    const { next } = changed(
      planMove(room, alice.id, { number: 5, option: 'double' }, T0 + sec, fixedRandom()),
    );
    expect(next.whosTurn.currentNumber).toBe(10);
    expect(next.version).toBe(room.version + 1);
    expect(
      expectAppError(() =>
        planMove(next, alice.id, { number: 5, option: 'plain' }, T0 + 2 * sec, fixedRandom()),
      ),
    ).toEqual({
      code: 'CONFLICT',
      message: 'It is not your turn.',
    });
    expect(
      expectAppError(() => planMove(next, carol.id, { number: 5, option: 'plain' }, T0, fixedRandom())),
    ).toEqual({
      code: 'FORBIDDEN',
      message: ROOM_MESSAGES.notAPlayer,
    });
  });

  it('refuses an option not offered at the total, and a move after the turn expired, with 400', () => {
    const room = startedRoom();
    expect(
      expectAppError(() => planMove(room, alice.id, { number: 5, option: 'minus' }, T0, fixedRandom())).code,
    ).toBe('VALIDATION');
    const late = T0 + (room.duration + 4 + LATE_TOLERANCE) * sec + 1;
    expect(
      expectAppError(() => planMove(room, alice.id, { number: 5, option: 'plain' }, late, fixedRandom())),
    ).toEqual({
      code: 'VALIDATION',
      message: 'Time is up for this turn.',
    });
  });

  it('draws "random" from the given source', () => {
    const { next } = changed(
      planMove(startedRoom(), alice.id, { number: 'random', option: 'plain' }, T0, fixedRandom(0.99)),
    );
    expect(next.whosTurn.moves[0]?.number).toBe(9);
  });
});

describe('leaving and deleting', () => {
  it('deletes a waiting room its only player leaves, with no final snapshot', () => {
    const room = waitingRoom();
    const change = changed(planLeave(room, alice.id, T0));
    expect(change.deleted).toEqual({ reason: 'empty', version: 2 });
  });

  it('ends a running game with the leaver as loser, then deletes the room', () => {
    const room = startedRoom();
    const change = changed(planLeave(room, bob.id, T0 + sec));
    expect(change.next.whosTurn).toMatchObject({ gameOver: true, winner: 'player1', endReason: 'left' });
    expect(change.next.version).toBe(room.version + 1);
    expect(change.deleted).toEqual({ reason: 'left', version: room.version + 2 });
  });

  it('counts a leave after the turn ran out as a timeout of the player to move', () => {
    const room = startedRoom();
    const late = T0 + (room.duration + 4 + LATE_TOLERANCE) * sec + 1;
    const change = changed(planLeave(room, bob.id, late));
    expect(change.next.whosTurn).toMatchObject({ winner: 'player2', endReason: 'timeout' });
  });

  it('deletes a finished room a player leaves without touching the result', () => {
    const room = finishedRoom();
    const change = changed(planLeave(room, bob.id, T0 + 100 * sec));
    expect(change.next.whosTurn).toBe(room.whosTurn);
    expect(change.deleted).toEqual({ reason: 'left', version: room.version + 1 });
  });

  it('lets only the creator or a player delete; a running game is lost by the deleting player', () => {
    const room = startedRoom();
    expect(expectAppError(() => planDelete(room, carol.id, T0))).toEqual({
      code: 'FORBIDDEN',
      message: ROOM_MESSAGES.notCreatorOrPlayer,
    });
    const change = changed(planDelete(room, alice.id, T0 + sec));
    expect(change.next.whosTurn).toMatchObject({ winner: 'player2', endReason: 'left' });
    expect(change.deleted?.reason).toBe('deleted');
    expect(expectAppError(() => planLeave(room, carol.id, T0)).code).toBe('FORBIDDEN');
  });
});

describe('aborted games (DECISIONS.md: a game ended before each player moved pays nothing)', () => {
  /** The room after `count` plain moves, one a second from T0. */
  const afterMoves = (count: number): RoomRecord => {
    let room = startedRoom();
    for (let i = 1; i <= count; i++) {
      const mover = room.whosTurn.player1.turn ? alice : bob;
      room = changed(
        planMove(room, mover.id, { number: 3, option: 'plain' }, T0 + i * sec, fixedRandom()),
      ).next;
    }
    return room;
  };
  /** Every way a running game ends without reaching 198: leaves, a deletion, a timeout, abandonment. */
  const endings = (room: RoomRecord): [string, RoomRecord][] => {
    const now = T0 + (room.whosTurn.moves.length + 1) * sec;
    const turn = {
      roomId: room._id,
      version: room.version,
      gameNumber: 1,
      moveIndex: room.whosTurn.moves.length,
    };
    const deadlineMs = fromSpecSeconds(room.whosTurn.deadline as number);
    const timedOut = planDeadline(room, { ...turn, kind: 'turn' }, deadlineMs + LATE_TOLERANCE * sec + 1);
    const abandoned = planDeadline(room, { ...turn, kind: 'abandoned' }, deadlineMs + 60 * sec);
    if ('notApplied' in timedOut || 'notApplied' in abandoned) throw new Error('expected both deadlines');
    return [
      ['alice leaves', changed(planLeave(room, alice.id, now)).next],
      ['bob leaves', changed(planLeave(room, bob.id, now)).next],
      ['alice deletes', changed(planDelete(room, alice.id, now)).next],
      ['the turn times out', timedOut.next],
      ['the room is abandoned', abandoned.next],
    ];
  };

  it.each([0, 1])('ends the game aborted after %i moves, whatever ends it', (moves) => {
    for (const [how, next] of endings(afterMoves(moves))) {
      expect([how, next.whosTurn.gameOver, isAbortedGame(next.whosTurn)]).toEqual([how, true, true]);
    }
  });

  it('ends the game as usual once both have moved', () => {
    for (const [how, next] of endings(afterMoves(2))) {
      expect([how, next.whosTurn.gameOver, isAbortedGame(next.whosTurn)]).toEqual([how, true, false]);
    }
    expect(isAbortedGame(finishedRoom().whosTurn)).toBe(false);
  });
});

describe('play again', () => {
  it('accepts only the caller’s own seat, and starts a new game when both are ready', () => {
    const room = finishedRoom();
    const endedMs = T0 + room.whosTurn.moves.length * sec;
    expect(expectAppError(() => planReady(room, alice.id, 'player2', endedMs + sec, fixedRandom()))).toEqual({
      code: 'FORBIDDEN',
      message: ROOM_MESSAGES.notYourSeat,
    });
    const one = changed(planReady(room, alice.id, 'player1', endedMs + sec, fixedRandom())).next;
    expect(one.whosTurn.player1.restart).toBe(true);
    expect(isUnchanged(planReady(one, alice.id, 'player1', endedMs + 2 * sec, fixedRandom()))).toBe(true);
    const both = changed(planReady(one, bob.id, 'player2', endedMs + 3 * sec, fixedRandom())).next;
    expect(both.whosTurn).toMatchObject({
      gameNumber: 2,
      gameStarted: true,
      gameOver: false,
      currentNumber: 0,
    });
    expect(both.gameStartedAt).toEqual(new Date(endedMs + 3 * sec));
    expect(
      expectAppError(() => planReady(room, bob.id, 'player2', endedMs + 51 * sec, fixedRandom())),
    ).toEqual({
      code: 'CONFLICT',
      message: 'The time to play again is over.',
    });
  });

  it('refuses Play Again while the game runs (409)', () => {
    expect(expectAppError(() => planReady(startedRoom(), alice.id, 'player1', T0, fixedRandom())).code).toBe(
      'CONFLICT',
    );
  });
});

describe('deadlines from the timer', () => {
  const turnDue = (room: RoomRecord) => T0 + (room.duration + 4 + LATE_TOLERANCE) * sec + 1;
  /** The timer's request of `kind`, armed at the room's version in game 1 before its first move. */
  const deadline = (
    room: RoomRecord,
    kind: DeadlineKind,
    overrides: Partial<DeadlineDueRequest> = {},
  ): DeadlineDueRequest => ({
    roomId: room._id,
    kind,
    version: room.version,
    gameNumber: 1,
    moveIndex: 0,
    ...overrides,
  });

  it('times out the current turn only once it is due: the player to move loses', () => {
    const room = startedRoom();
    const request = deadline(room, 'turn');
    expect(planDeadline(room, request, turnDue(room) - 1)).toEqual({ notApplied: 'not-due' });
    const plan = planDeadline(room, request, turnDue(room));
    if ('notApplied' in plan) throw new Error('expected the timeout');
    expect(plan.next.whosTurn).toMatchObject({ gameOver: true, winner: 'player2', endReason: 'timeout' });
    expect(plan.deleted).toBeUndefined();
  });

  it('ignores a timeout for a turn that was played meanwhile', () => {
    const room = startedRoom();
    const moved = applyMove(
      room.whosTurn,
      'player1',
      { number: 3, option: 'plain' },
      { duration: 32, nowMs: T0 },
    );
    if (!moved.ok) throw new Error(moved.message);
    const after = { ...room, whosTurn: moved.state, version: room.version + 1 };
    const request = deadline(room, 'turn');
    expect(planDeadline(after, request, turnDue(room) + 100 * sec)).toEqual({ notApplied: 'stale-turn' });
  });

  it('ends and deletes an abandoned game 60 s past its deadline', () => {
    const room = startedRoom();
    const request = deadline(room, 'abandoned', { version: 2 });
    const deadlineMs = T0 + (room.duration + 4) * sec;
    expect(planDeadline(room, request, deadlineMs + 59 * sec)).toEqual({ notApplied: 'not-due' });
    const plan = planDeadline(room, request, deadlineMs + 60 * sec);
    if ('notApplied' in plan) throw new Error('expected the deletion');
    expect(plan.next.whosTurn).toMatchObject({ endReason: 'timeout', winner: 'player2' });
    expect(plan.deleted).toEqual({ reason: 'abandoned', version: room.version + 2 });
  });

  it('deletes a finished room at game over + 64 s, unless a new game started', () => {
    const room = finishedRoom();
    const endedMs = T0 + room.whosTurn.moves.length * sec;
    const request = deadline(room, 'post-game');
    expect(planDeadline(room, request, endedMs + POST_GAME_EXPIRY * sec - 1)).toEqual({
      notApplied: 'not-due',
    });
    const plan = planDeadline(room, request, endedMs + POST_GAME_EXPIRY * sec);
    expect('notApplied' in plan ? plan : plan.deleted).toEqual({
      reason: 'post-game-expired',
      version: room.version + 1,
    });
    expect(planDeadline(room, { ...request, gameNumber: 2 }, endedMs + 100 * sec)).toEqual({
      notApplied: 'game-not-over',
    });
  });

  it('deletes a room still waiting for an opponent after 10 minutes', () => {
    const room = waitingRoom();
    const request = deadline(room, 'waiting', { version: 1, gameNumber: 0 });
    expect(planDeadline(room, request, T0 + WAITING_ROOM_EXPIRY * sec - 1)).toEqual({
      notApplied: 'not-due',
    });
    const plan = planDeadline(room, request, T0 + WAITING_ROOM_EXPIRY * sec);
    expect('notApplied' in plan ? plan : plan.deleted).toEqual({ reason: 'waiting-expired', version: 2 });
    expect(planDeadline(startedRoom(), request, T0 + 1000 * sec)).toEqual({ notApplied: 'not-waiting' });
  });
});

describe('fair play: the AI seed and the move limit', () => {
  function seededRoom(): RoomRecord {
    return changed(planJoin(waitingRoom(), bob, undefined, T0, fixedRandom(), fixedSeeds(SEED))).next;
  }

  it('starts each game with the drawn seed and its SHA-256 commitment', () => {
    const room = seededRoom();
    expect(room.whosTurn.aiSeed).toBe(SEED);
    expect(room.whosTurn.aiCommit).toBe(referenceCommit(SEED));
    const moved = changed(planMove(room, alice.id, { number: 5, option: 'plain' }, T0 + sec, fixedRandom()));
    expect(moved.next.whosTurn.moves[0]?.aiNumber).toBe(referenceAi(SEED, 0));
  });

  it('draws the seed from the CSPRNG by default: a fresh one for every game', () => {
    const a = startedRoom().whosTurn.aiSeed;
    const b = startedRoom().whosTurn.aiSeed;
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });

  it('ends a game as a draw with its 250th move below 198, and Play Again starts a new seed', () => {
    const at249 = playBelow198(seededRoom(), MOVE_LIMIT - 1);
    expect(at249.whosTurn.gameOver).toBe(false);
    const drawn = playBelow198(at249, 1);
    expect(drawn.gameOver).toBe(true);
    expect(drawn.whosTurn).toMatchObject({
      gameOver: true,
      winner: null,
      endReason: 'moveLimit',
      deadline: null,
      player1: { turn: false, restart: false },
      player2: { turn: false, restart: false },
    });
    expect(drawn.whosTurn.moves).toHaveLength(250);
    const endedMs = T0 + 250 * 100;
    const one = changed(planReady(drawn, bob.id, 'player2', endedMs + sec, fixedRandom(), fixedSeeds())).next;
    const both = changed(
      planReady(one, alice.id, 'player1', endedMs + 2 * sec, fixedRandom(), fixedSeeds(NEXT_SEED)),
    ).next;
    expect(both.whosTurn).toMatchObject({ gameNumber: 2, gameOver: false, aiSeed: NEXT_SEED, moves: [] });
  });

  it('refuses a move in a game stored before fair play (no seed) with 409; leaving still ends it', () => {
    const room = seededRoom();
    const { aiSeed: _seed, aiCommit: _commit, ...legacy } = room.whosTurn;
    const old = { ...room, whosTurn: legacy as RoomRecord['whosTurn'] };
    expect(
      expectAppError(() => planMove(old, alice.id, { number: 5, option: 'plain' }, T0 + sec, fixedRandom()))
        .code,
    ).toBe('CONFLICT');
    expect(changed(planLeave(old, alice.id, T0 + sec)).next.whosTurn.endReason).toBe('left');
    // Its view has no commitment to show, and says so with null rather than leaving the field out.
    expect(toRoomView(old, T0)).toMatchObject({ aiCommit: null, aiSeed: null, whosTurn: { aiCommit: null } });
  });
});

describe('the AI opponent', () => {
  const ai = { id: `ai:${waitingRoom()._id}`, name: 'AI' };
  const aiRoom = () => waitingRoom({ aiJoinAfter: 30 });
  const request = (room: RoomRecord, kind: 'ai-join' | 'ai-move') => ({
    roomId: room._id,
    kind,
    version: room.version,
    gameNumber: room.whosTurn.gameNumber,
    moveIndex: room.whosTurn.moves.length,
  });
  const applied = (plan: ReturnType<typeof planDeadline>): Transition => {
    if ('notApplied' in plan) throw new Error(`expected a change, got ${plan.notApplied}`);
    return plan;
  };

  it('takes the empty seat of a room created with the AI option once its 30 s are up, and starts the game', () => {
    const room = aiRoom();
    expect(toRoomView(room, T0)).toMatchObject({
      aiOpponent: true,
      aiJoinsAt: toSpecSeconds(T0 + 30 * sec),
    });
    expect(planDeadline(room, request(room, 'ai-join'), T0 + 30 * sec - 1)).toEqual({
      notApplied: 'not-due',
    });
    const next = applied(planDeadline(room, request(room, 'ai-join'), T0 + 30 * sec, fixedRandom())).next;
    expect(next.players).toEqual([alice, ai]);
    expect(next.whosTurn).toMatchObject({ gameStarted: true, player1: { turn: true } });
    expect(toRoomView(next, T0 + 30 * sec)).toMatchObject({ aiOpponent: true, aiJoinsAt: null });
  });

  it('leaves the seat to a person who joined first, and never joins a room without the option', () => {
    const joined = changed(planJoin(aiRoom(), bob, undefined, T0 + sec, fixedRandom())).next;
    expect(planDeadline(joined, request(joined, 'ai-join'), T0 + 60 * sec)).toEqual({
      notApplied: 'not-waiting',
    });
    const plain = waitingRoom();
    expect(toRoomView(plain, T0)).toMatchObject({ aiOpponent: false, aiJoinsAt: null });
    expect(planDeadline(plain, request(plain, 'ai-join'), T0 + 60 * sec)).toEqual({
      notApplied: 'not-waiting',
    });
  });

  it("plays its own turn after its think time, with a legal move, and never the person's turn", () => {
    const started = applied(
      planDeadline(aiRoom(), request(aiRoom(), 'ai-join'), T0 + 30 * sec, fixedRandom()),
    ).next;
    // Player 1 (alice) moves first: no AI move is due on her turn.
    expect(planDeadline(started, request(started, 'ai-move'), T0 + 60 * sec)).toEqual({
      notApplied: 'not-ai-turn',
    });
    const moved = changed(
      planMove(started, alice.id, { number: 5, option: 'plain' }, T0 + 31 * sec, fixedRandom()),
    ).next;
    const turnStartMs = T0 + 31 * sec;
    expect(planDeadline(moved, request(moved, 'ai-move'), turnStartMs + 1000)).toEqual({
      notApplied: 'not-due',
    });
    const after = applied(
      planDeadline(moved, request(moved, 'ai-move'), turnStartMs + 3600, fixedRandom()),
    ).next;
    expect(after.whosTurn.moves).toHaveLength(2);
    expect(after.whosTurn.moves[1]).toMatchObject({ player: 'player2' });
    expect(after.whosTurn.player1.turn).toBe(true);
    // A repeated deadline for the same turn changes nothing.
    expect(planDeadline(after, request(moved, 'ai-move'), turnStartMs + 5000)).toEqual({
      notApplied: 'not-ai-turn',
    });
  });

  it('is ready for another game as soon as its opponent is', () => {
    let room = applied(
      planDeadline(aiRoom(), request(aiRoom(), 'ai-join'), T0 + 30 * sec, fixedRandom()),
    ).next;
    let nowMs = T0 + 31 * sec;
    while (!room.whosTurn.gameOver) {
      nowMs += 100;
      const seat = room.whosTurn.player1.turn ? 'player1' : 'player2';
      room =
        seat === 'player1'
          ? changed(planMove(room, alice.id, { number: 9, option: 'plain' }, nowMs, fixedRandom())).next
          : applied(planDeadline(room, request(room, 'ai-move'), nowMs + 3600, fixedRandom())).next;
      if (seat === 'player2') nowMs += 3600;
    }
    const again = changed(
      planReady(room, alice.id, 'player1', nowMs + sec, fixedRandom(), fixedSeeds(NEXT_SEED)),
    ).next;
    expect(again.whosTurn).toMatchObject({ gameStarted: true, gameOver: false, gameNumber: 2, moves: [] });
    expect(again.version).toBe(room.version + 1);
  });
});
