import { ROOM_MESSAGES } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { CreateRoomDto, EditRoomDto, ListRoomsQueryDto } from './rooms.dto';

const PICK = 'Pick a whole number from 1 to 9, or "random".';

/** The path -> first message map the global ValidationPipe (same options) would answer with. */
async function errorsOf<T extends object>(type: new () => T, body: object): Promise<Record<string, string>> {
  const errors = await validate(plainToInstance(type, body), {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  const found: Record<string, string> = {};
  const walk = (list: ValidationError[], prefix: string) => {
    for (const error of list) {
      const path = prefix ? `${prefix}.${error.property}` : error.property;
      const first = Object.values(error.constraints ?? {})[0];
      if (first) found[path] = first;
      walk(error.children ?? [], path);
    }
  };
  walk(errors, '');
  return found;
}

const create = {
  gameType: 'quick-battle',
  createdBy: { id: 'u1', name: 'alice' },
  duration: 32,
  passCode: '',
};

describe('room DTOs (shapes at the edge)', () => {
  it('accepts SPEC create payloads and answers bad fields with SPEC messages', async () => {
    expect(await errorsOf(CreateRoomDto, create)).toEqual({});
    expect(await errorsOf(CreateRoomDto, { ...create, passCode: '0420', duration: 300 })).toEqual({});
    expect(
      await errorsOf(CreateRoomDto, { ...create, gameType: 'chess', duration: 15, passCode: '12345' }),
    ).toEqual({
      gameType: MESSAGES.gameType,
      duration: MESSAGES.duration,
      passCode: MESSAGES.createPasscode,
    });
    const operators = await errorsOf(CreateRoomDto, {
      ...create,
      passCode: { $ne: '' },
      createdBy: { id: { $gt: '' }, name: 'x' },
    });
    expect(Object.keys(operators).sort()).toEqual(['createdBy.id', 'passCode']);
    expect(Object.keys(await errorsOf(CreateRoomDto, { ...create, isAdmin: true }))).toEqual(['isAdmin']);
  });

  it('lets the four intents through and refuses a raw whosTurn with its clear message', async () => {
    for (const body of [
      { players: { playerId: 'u1', playerName: 'alice' }, passCode: '0420' },
      { players: { playerId: 'u1', removePlayer: true } },
      { whosTurnReadyPlayer: { player2: { turn: false, restart: true } } },
      { move: { number: 'random' } },
      { move: { number: 9, option: 'minus' } },
    ]) {
      expect(await errorsOf(EditRoomDto, body)).toEqual({});
    }
    expect(await errorsOf(EditRoomDto, { whosTurn: { currentNumber: 197 } })).toEqual({
      whosTurn: ROOM_MESSAGES.rawWhosTurn,
    });
  });

  it('refuses picks 0, 10, 2.5 and "5", unknown options, unknown keys and operator-shaped values', async () => {
    for (const number of [0, 10, 2.5, '5', { $gt: 0 }, null]) {
      expect(await errorsOf(EditRoomDto, { move: { number } })).toEqual({ 'move.number': PICK });
    }
    expect(Object.keys(await errorsOf(EditRoomDto, { move: { number: 3, option: 'triple' } }))).toEqual([
      'move.option',
    ]);
    expect(Object.keys(await errorsOf(EditRoomDto, { move: { number: 3, total: 198 } }))).toEqual([
      'move.total',
    ]);
    expect(Object.keys(await errorsOf(EditRoomDto, { players: { playerId: { $ne: null } } }))).toEqual([
      'players.playerId',
    ]);
    expect(
      Object.keys(await errorsOf(EditRoomDto, { players: { playerId: 'u1', removePlayer: false } })),
    ).toEqual(['players.removePlayer']);
    expect(
      Object.keys(
        await errorsOf(EditRoomDto, { whosTurnReadyPlayer: { player1: { turn: true, restart: true } } }),
      ),
    ).toEqual(['whosTurnReadyPlayer.player1.turn']);
    expect(Object.keys(await errorsOf(EditRoomDto, { whosTurnReadyPlayer: { player3: {} } }))).toEqual([
      'whosTurnReadyPlayer.player3',
    ]);
    expect(Object.keys(await errorsOf(EditRoomDto, { passCode: ['0420'] }))).toEqual(['passCode']);
  });

  it('reads the list query from strings', async () => {
    const query = plainToInstance(ListRoomsQueryDto, { page: '2', freeSpot: 'true', gameType: 'tournament' });
    expect(await validate(query)).toEqual([]);
    expect(query).toEqual({ page: 2, freeSpot: true, gameType: 'tournament' });
    expect(plainToInstance(ListRoomsQueryDto, { freeSpot: 'false' }).freeSpot).toBe(false);
    expect(Object.keys(await errorsOf(ListRoomsQueryDto, { page: '0', freeSpot: 'maybe' })).sort()).toEqual([
      'freeSpot',
      'page',
    ]);
  });
});
