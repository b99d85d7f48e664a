import { type EventEnvelope, EventTypes, type LeaderboardChanged } from '@oasis198/contracts';
import { createLogger, makeEvent } from '@oasis198/service-kit';
import { InMemoryRewardsRepository } from '../rewards/rewards.repository.fake';
import type { RewardsRepository } from '../rewards/rewards.repository';
import { InMemoryGameHistoryRepository } from '../game-history/game-history.repository.fake';
import type { GameHistoryRepository, PlayerGameResult } from '../game-history/game-history.repository';
import { drawnGame, wonGame } from './game-finished.fixtures';
import { PlayerEventsService } from './player-events.service';

const at = (ms: number) => new Date(ms);
const entry = (playerId: string, gameId: string): PlayerGameResult => ({
  playerId,
  gameId,
  roomId: 'room1',
  finishedAt: new Date(0),
  seat: 'player1',
  opponent: { id: 'x', name: 'x' },
  result: 'won',
  endReason: 'reached198',
  moves: 20,
  duration: 32,
  aiCommit: null,
  aiSeed: null,
  event: null,
  moveList: null,
});
const registered = (userId: string, name: string, when = 1000) =>
  makeEvent(EventTypes.userRegistered, `r:${userId}:${when}`, { userId, name }, at(when));
const renamed = (userId: string, name: string, when: number) =>
  makeEvent(EventTypes.userRenamed, `n:${userId}:${when}`, { userId, name }, at(when));
const deleted = (userId: string) => makeEvent(EventTypes.userDeleted, `d:${userId}`, { userId });
const finished = (gameId: string, winner: string, loser: string, duration = 32): EventEnvelope =>
  makeEvent(
    EventTypes.gameFinished,
    `g:${gameId}`,
    wonGame(
      { id: winner, name: `${winner}name` },
      { id: loser, name: `${loser}name` },
      {
        gameId,
        roomId: gameId,
        duration,
      },
    ),
  );

function setup(keep?: number) {
  const repo = new InMemoryRewardsRepository(keep);
  const history = new InMemoryGameHistoryRepository();
  const announced: LeaderboardChanged[] = [];
  const service = new PlayerEventsService(
    repo as unknown as RewardsRepository,
    history as unknown as GameHistoryRepository,
    { changed: (change) => void announced.push(change) },
    createLogger('t', 'silent'),
  );
  return { repo, history, service, announced };
}

describe('PlayerEventsService', () => {
  it('creates a record once, however often the registration comes', async () => {
    const { repo, service } = setup();
    for (let i = 0; i < 3; i++) await service.onUserEvent(registered('u1', 'alice1'));
    expect(repo.rewards.size).toBe(1);
    expect(repo.rewards.get('u1')).toMatchObject({ playerName: 'alice1', playedGames: 0 });
  });

  it('keeps the newest name: an older rename or registration arriving late changes nothing', async () => {
    const { repo, service } = setup();
    await service.onUserEvent(registered('u1', 'alice1', 1000));
    await service.onUserEvent(renamed('u1', 'alice3', 3000));
    await service.onUserEvent(renamed('u1', 'alice2', 2000));
    await service.onUserEvent(registered('u1', 'alice1', 1000));
    expect(repo.rewards.get('u1')?.playerName).toBe('alice3');
  });

  it('renames even when another replica creates the record between its two steps', async () => {
    const { repo, service } = setup();
    // The rename finds no record; before it can create one, the registration (older) creates it.
    let step = 0;
    repo.beforeWrite = async () => {
      step += 1;
      repo.beforeWrite = async () => {
        step += 1;
        if (step === 2) await repo.createIfMissing('u1', 'alice1', 1000);
      };
    };
    await service.onUserEvent(renamed('u1', 'alice2', 2000));
    expect(repo.rewards.get('u1')?.playerName).toBe('alice2');
  });

  it('a rename before the registration creates the record with the newer name', async () => {
    const { repo, service } = setup();
    await service.onUserEvent(renamed('u1', 'alice2', 2000));
    await service.onUserEvent(registered('u1', 'alice1', 1000));
    expect(repo.rewards.get('u1')?.playerName).toBe('alice2');
  });

  it('deletes, and nothing afterwards brings the player back', async () => {
    const { repo, service } = setup();
    await service.onUserEvent(registered('u1', 'alice1'));
    await service.onUserEvent(deleted('u1'));
    await service.onUserEvent(deleted('u1'));
    await service.onUserEvent(registered('u1', 'alice1'));
    await service.onUserEvent(renamed('u1', 'ghost1', 9999));
    await service.onGameEvents([finished('g1', 'u1', 'u2')]);
    expect(repo.rewards.has('u1')).toBe(false);
    expect(repo.rewards.get('u2')).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
  });

  it('undoes a registration that raced with a deletion on another replica', async () => {
    const { repo, service } = setup();
    repo.beforeWrite = async () => {
      await repo.markDeleted('u1');
      await repo.delete('u1');
    };
    await service.onUserEvent(registered('u1', 'alice1'));
    expect(repo.rewards.has('u1')).toBe(false);
  });

  it('pays a game once per player, however often it is delivered, and counts the blitz title', async () => {
    const { repo, service } = setup();
    for (let i = 0; i < 3; i++) await service.onGameEvents([finished('g1', 'w', 'l', 14)]);
    expect(repo.rewards.get('w')).toMatchObject({
      playerName: 'wname',
      playedGames: 1,
      assets: { points: 25, coins: 10 },
      championStatus: expect.objectContaining({ blitzWinner: true }),
    });
    expect(repo.rewards.get('l')).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
    expect(repo.rewards.get('l')?.championStatus.blitzWinner).toBe(false);
  });

  it('pays a game once even when it is redelivered long after, beyond the recent games remembered', async () => {
    const { repo, service } = setup();
    for (let i = 1; i <= 250; i++) await service.onGameEvents([finished(`g${i}`, 'w', 'l')]);
    const before = structuredClone(repo.rewards.get('w'));
    expect(before).toMatchObject({ playedGames: 250, assets: { points: 6250, coins: 2500 } });
    await service.onGameEvents([finished('g1', 'w', 'l')]);
    expect(repo.rewards.get('w')).toEqual(before);
    expect(repo.rewards.get('l')).toMatchObject({ playedGames: 250, assets: { points: 1250, coins: 250 } });
  });

  it('counts a win once per game, however often it is delivered, and never for a draw', async () => {
    const { repo, service } = setup();
    for (let i = 0; i < 3; i++) await service.onGameEvents([finished('g1', 'w', 'l')]);
    await service.onGameEvents([finished('g2', 'w', 'l')]);
    const draw = drawnGame({ id: 'w', name: 'wname' }, { id: 'l', name: 'lname' }, { gameId: 'g3' });
    await service.onGameEvents([makeEvent(EventTypes.gameFinished, 'g:g3', draw)]);
    expect(repo.rewards.get('w')).toMatchObject({ playedGames: 3, wins: 2 });
    expect(repo.rewards.get('l')).toMatchObject({ playedGames: 3, wins: 0 });
  });

  it('announces a paid game to the leaderboards once, not its redeliveries', async () => {
    const { service, announced } = setup();
    await service.onGameEvents([finished('g1', 'w', 'l')]);
    await service.onGameEvents([finished('g1', 'w', 'l')]);
    expect(announced).toEqual([{ gameId: 'g1', playerIds: ['w', 'l'] }]);
  });

  it('pays a batch of games, a player in two of them and a copy among them, each once, and announces each game once', async () => {
    const { repo, service, announced } = setup();
    await service.onUserEvent(deleted('gone'));
    await service.onGameEvents([
      finished('g1', 'w', 'l'),
      finished('g2', 'x', 'y'),
      makeEvent(EventTypes.moveMade, 'm1', {} as never),
      finished('g3', 'w', 'gone'),
      finished('g1', 'w', 'l'),
    ]);
    expect(repo.rewards.get('w')).toMatchObject({
      playedGames: 2,
      wins: 2,
      assets: { points: 50, coins: 20 },
    });
    expect(repo.rewards.get('l')).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
    expect(repo.rewards.get('y')).toMatchObject({ playedGames: 1, assets: { points: 5, coins: 1 } });
    expect(repo.rewards.has('gone')).toBe(false);
    expect(announced).toEqual([
      { gameId: 'g1', playerIds: ['w', 'l'] },
      { gameId: 'g2', playerIds: ['x', 'y'] },
      { gameId: 'g3', playerIds: ['w'] },
    ]);
    await service.onGameEvents([finished('g2', 'x', 'y'), finished('g3', 'w', 'gone')]);
    expect(repo.rewards.get('w')).toMatchObject({ playedGames: 2 });
    expect(announced).toHaveLength(3);
  });

  it('gives the AI no record: a game against it pays the human one played game', async () => {
    const { repo, service } = setup();
    await service.onUserEvent(registered('h', 'human1'));
    const game = wonGame({ id: 'h', name: 'human1' }, { id: 'ai:room9', name: 'AI' }, { gameId: 'room9:1' });
    await service.onGameEvents([makeEvent(EventTypes.gameFinished, 'g:room9:1', game)]);
    expect(repo.rewards.has('ai:room9')).toBe(false);
    expect(repo.rewards.get('h')).toMatchObject({ playedGames: 1, wins: 0, assets: { points: 0, coins: 0 } });
  });

  it("deletes the player's game history with the account", async () => {
    const { history, service } = setup();
    await service.onUserEvent(registered('u1', 'alice1'));
    await history.recordResults([{ ...entry('u1', 'g1') }, { ...entry('u2', 'g1') }]);
    await service.onUserEvent(deleted('u1'));
    expect(await history.list('u1', 50)).toEqual([]);
    expect(await history.list('u2', 50)).toHaveLength(1);
  });

  it('refuses a malformed game.finished as never applicable (VALIDATION) and ignores unrelated events', async () => {
    const { repo, service } = setup();
    const broken = { ...finished('g1', 'w', 'w'), id: 'x' };
    await expect(service.onGameEvents([broken])).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(
      service.onUserEvent({ ...registered('u1', 'a'), data: { userId: '' } } as never),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    await service.onGameEvents([makeEvent(EventTypes.moveMade, 'm1', {} as never)]);
    expect(repo.rewards.size).toBe(0);
  });
});
