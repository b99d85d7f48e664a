import { type EventEnvelope, EventTypes, REWARD_MESSAGES, type RoomView } from '@oasis198/contracts';
import { aiCommitOf, aiNumber, fromSpecSeconds, type MoveRecord, toSpecSeconds } from '@oasis198/game-rules';
import { makeEvent } from '@oasis198/service-kit';
import { drawnGame, wonGame } from '../player-events/game-finished.fixtures';
import { InMemoryRewardsRepository } from '../rewards/rewards.repository.fake';
import type { RewardsRepository } from '../rewards/rewards.repository';
import { InMemoryGameHistoryRepository } from './game-history.repository.fake';
import type { GameHistoryRepository } from './game-history.repository';
import { GameHistoryService } from './game-history.service';

const SEED = 'c3'.repeat(32);
const ALICE = { id: 'alice', name: 'alice1' };
const BOB = { id: 'bob', name: 'bob1' };
const T0 = Date.UTC(2026, 0, 1);

/** Three real moves of a seeded game (the AI numbers the seed gives). */
function movesOf(count = 3): MoveRecord[] {
  let total = 0;
  return Array.from({ length: count }, (_, i) => {
    total += 5;
    return {
      player: i % 2 === 0 ? 'player1' : 'player2',
      number: 5,
      option: 'plain',
      aiNumber: aiNumber(SEED, i),
      total,
      at: toSpecSeconds(T0) + i,
    };
  });
}

/**
 * game.finished of game n of room `room`, alice (player 1) beating bob, ended at T0 + n minutes,
 * with its moves unless `withMoves` is false (an event written before game.finished carried them).
 */
function finished(
  n: number,
  room = 'room1',
  players = { winner: ALICE, loser: BOB },
  withMoves = true,
): EventEnvelope {
  const game = wonGame(players.winner, players.loser, {
    gameId: `${room}:${n}`,
    roomId: room,
    gameNumber: n,
    moves: 3,
    ...(withMoves ? { moveList: movesOf() } : {}),
    aiSeed: SEED,
    aiCommit: aiCommitOf(SEED),
    endReason: 'left',
    finishedAt: new Date(T0 + n * 60_000).toISOString(),
  });
  return makeEvent(EventTypes.gameFinished, `g:${room}:${n}`, game);
}

function setup(keep = 50) {
  const rewards = new InMemoryRewardsRepository();
  const history = new InMemoryGameHistoryRepository(keep);
  const service = new GameHistoryService(
    history as unknown as GameHistoryRepository,
    rewards as unknown as RewardsRepository,
    { GAME_HISTORY_KEPT: keep },
  );
  return { rewards, history, service };
}

describe('GameHistoryService', () => {
  it("lists each player's side of a finished game: opponent, result, end reason, moves and the seed", async () => {
    const { rewards, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await rewards.createIfMissing('bob', 'bob1', 1);
    await service.onGameEvents([finished(1, 'room1', { winner: ALICE, loser: BOB }, false)]);
    expect(await service.list('alice')).toEqual([
      {
        gameId: 'room1:1',
        roomId: 'room1',
        finishedAt: new Date(T0 + 60_000).toISOString(),
        seat: 'player1',
        opponent: BOB,
        result: 'won',
        endReason: 'left',
        moves: 3,
        duration: 32,
        aiCommit: aiCommitOf(SEED),
        aiSeed: SEED,
        verifiable: false,
        event: null,
      },
    ]);
    expect(await service.list('bob')).toMatchObject([{ seat: 'player2', opponent: ALICE, result: 'lost' }]);
  });

  it('marks an arena game with its event\'s name for both players (DECISIONS.md "Event cup arenas")', async () => {
    const { rewards, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await rewards.createIfMissing('bob', 'bob1', 1);
    const arena = finished(2, 'arena1');
    const inArena = { ...arena, data: { ...arena.data, arenaId: 'event-9:1796196000000' } } as EventEnvelope;
    await service.onGameEvents([finished(1), inArena]);
    for (const player of ['alice', 'bob']) {
      expect((await service.list(player)).map((g) => [g.roomId, g.event])).toEqual([
        ['arena1', 'Event 9'],
        ['room1', null],
      ]);
    }
  });

  it('lists an aborted game as aborted for both players, with why it ended (DECISIONS.md "Aborted games")', async () => {
    const { rewards, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await rewards.createIfMissing('bob', 'bob1', 1);
    const game = (n: number, moves: MoveRecord[], aborted?: boolean) =>
      makeEvent(EventTypes.gameFinished, `g:room1:${n}`, {
        ...wonGame(ALICE, BOB, {
          gameId: `room1:${n}`,
          gameNumber: n,
          moves: moves.length,
          moveList: moves,
          endReason: n === 1 ? 'left' : 'timeout',
          finishedAt: new Date(T0 + n * 60_000).toISOString(),
        }),
        ...(aborted === undefined ? {} : { aborted }),
      });
    // As rooms marks it, and an event from before the field (derived from the moves).
    await service.onGameEvents([game(1, [], true), game(2, movesOf(1))]);
    for (const player of ['alice', 'bob']) {
      expect((await service.list(player)).map((g) => [g.gameId, g.result, g.endReason, g.moves])).toEqual([
        ['room1:2', 'aborted', 'timeout', 1],
        ['room1:1', 'aborted', 'left', 0],
      ]);
    }
  });

  it('keeps the moves game.finished carries, for both players, and reads no other event', async () => {
    const { rewards, history, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await rewards.createIfMissing('bob', 'bob1', 1);
    await service.onGameEvents([finished(1)]);
    for (const player of ['alice', 'bob']) {
      expect(await service.get(player, 'room1:1')).toMatchObject({ verifiable: true, moveList: movesOf() });
    }
    // A room snapshot (one per move) is not the history's business: it writes nothing.
    const writes = history.writes;
    await service.onGameEvents([makeEvent(EventTypes.roomUpdated, 'u:room1:9', { room: {} as RoomView })]);
    expect(history.writes).toBe(writes);
  });

  it('changes nothing when an event is delivered again', async () => {
    const { rewards, history, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await service.onGameEvents([finished(1)]);
    const before = structuredClone([...history.games.entries()]);
    const writes = history.writes;
    await service.onGameEvents([finished(1)]);
    expect([...history.games.entries()]).toEqual(before);
    expect(history.writes).toBe(writes);
    expect(await service.list('alice')).toHaveLength(1);
  });

  it('records a batch of games, a player in several and a copy among them, each once', async () => {
    const { rewards, service } = setup(3);
    await rewards.createIfMissing('alice', 'alice1', 1);
    await rewards.createIfMissing('bob', 'bob1', 1);
    await service.onGameEvents([finished(1), finished(2, 'room2'), finished(1), finished(3), finished(4)]);
    expect((await service.list('alice')).map((g) => g.gameId)).toEqual(['room1:4', 'room1:3', 'room2:2']);
    expect((await service.list('bob')).map((g) => g.result)).toEqual(['lost', 'lost', 'lost']);
  });

  it('keeps the newest games only, and a late copy of a dropped game does not come back', async () => {
    const { rewards, history, service } = setup(3);
    await rewards.createIfMissing('alice', 'alice1', 1);
    for (let n = 1; n <= 5; n++) await service.onGameEvents([finished(n)]);
    expect((await service.list('alice')).map((g) => g.gameId)).toEqual(['room1:5', 'room1:4', 'room1:3']);
    const writes = history.writes;
    await service.onGameEvents([finished(1)]);
    expect(history.writes).toBe(writes);
    expect((await service.list('alice')).map((g) => g.gameId)).toEqual(['room1:5', 'room1:4', 'room1:3']);
  });

  it('names the AI as the opponent and keeps no history for it', async () => {
    const { rewards, history, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    const ai = { id: 'ai:room7', name: 'AI' };
    await service.onGameEvents([finished(1, 'room7', { winner: ai, loser: ALICE })]);
    expect(await service.list('alice')).toMatchObject([
      { opponent: ai, result: 'lost', seat: 'player2', verifiable: true },
    ]);
    expect([...history.games.values()].every((game) => game.playerId === 'alice')).toBe(true);
    await expect(service.list('ai:room7')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps a draw as a draw for both players', async () => {
    const { rewards, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    const draw = drawnGame(ALICE, BOB, { gameId: 'room1:9', finishedAt: new Date(T0).toISOString() });
    await service.onGameEvents([makeEvent(EventTypes.gameFinished, 'g:draw', draw)]);
    expect(await service.list('alice')).toMatchObject([
      { result: 'draw', endReason: 'moveLimit', moves: 250 },
    ]);
  });

  it('writes nothing for a deleted player', async () => {
    const { rewards, history, service } = setup();
    await rewards.markDeleted('bob');
    await service.onGameEvents([finished(1)]);
    expect([...history.games.values()].map((game) => game.playerId)).toEqual(['alice']);
  });

  it('undoes a write that raced with the deletion on another replica', async () => {
    const { rewards, history, service } = setup();
    const write = history.recordResults.bind(history);
    history.recordResults = async (entries) => {
      const written = await write(entries);
      // Another replica handles bob's deletion while the game's results are being written.
      await rewards.markDeleted('bob');
      return written;
    };
    await service.onGameEvents([finished(1)]);
    expect(await history.list('bob', 50)).toEqual([]);
    expect(await history.list('alice', 50)).toHaveLength(1);
  });

  it('answers 404 for an unknown player or game, and a clear 404 for ids that cannot name one', async () => {
    const { rewards, service } = setup();
    await rewards.createIfMissing('alice', 'alice1', 1);
    await service.onGameEvents([finished(1, 'room1', { winner: ALICE, loser: BOB }, false)]);
    for (const id of ['nobody', '', 'x'.repeat(65), 42, { $gt: '' }]) {
      await expect(service.list(id)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: REWARD_MESSAGES.notFound,
      });
    }
    for (const gameId of ['room1:2', '', 'x'.repeat(129), 7, ['room1:1']]) {
      await expect(service.get('alice', gameId)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: REWARD_MESSAGES.gameNotFound,
      });
    }
    expect((await service.get('alice', 'room1:1')).moveList).toBeNull();
    expect(await service.list('alice')).toHaveLength(1);
  });

  it('terminates a malformed result or move list (VALIDATION), and ignores other events', async () => {
    const { service } = setup();
    const bad = finished(1);
    (bad.data as { moveList: unknown[] }).moveList = [{ player: 'x' }];
    await expect(service.onGameEvents([bad])).rejects.toMatchObject({ code: 'VALIDATION' });
    const noDate = finished(1);
    (noDate.data as { finishedAt: string }).finishedAt = 'yesterday';
    await expect(service.onGameEvents([noDate])).rejects.toMatchObject({ code: 'VALIDATION' });
    await service.onGameEvents([makeEvent(EventTypes.moveMade, 'm1', {} as never)]);
    expect(fromSpecSeconds(toSpecSeconds(T0))).toBe(T0);
  });
});
