import { MESSAGES } from '@oasis198/game-rules';
import type { z } from 'zod';
import {
  AppError,
  createRewardBodySchema,
  createRoomBodySchema,
  editRewardBodySchema,
  editRoomBodySchema,
  editUserBodySchema,
  listRewardsQuerySchema,
  listRewardsRequestSchema,
  listRoomsQuerySchema,
  loginBodySchema,
  parseOr,
  parseWith,
  registerBodySchema,
  rewardIdSchema,
  ROOM_MESSAGES,
  roomGonePushDataSchema,
  USER_MESSAGES,
} from './index';

const PICK = 'Pick a whole number from 1 to 9, or "random".';

/** The envelope a parse answers: { message, details } of its VALIDATION error, or the parsed value. */
function outcome(schema: z.ZodType, value: unknown): { message?: string; details?: Record<string, string> } {
  try {
    parseWith(schema, value);
    return {};
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { message, details } = error as AppError;
    expect((error as AppError).code).toBe('VALIDATION');
    return details ? { message, details } : { message };
  }
}

const detailsOf = (schema: z.ZodType, value: unknown) => outcome(schema, value).details ?? {};

const account = {
  name: 'alice1',
  email: 'alice@example.com',
  password: 'Zebra2Lamp',
  confirmedPassword: 'Zebra2Lamp',
};

describe('users schemas (SPEC §5)', () => {
  it('accepts a valid registration and login', () => {
    expect(outcome(registerBodySchema, account)).toEqual({});
    expect(outcome(loginBodySchema, { email: account.email, password: account.password })).toEqual({});
  });

  it('answers each invalid field with its SPEC message, operator-shaped values included', () => {
    expect(
      detailsOf(registerBodySchema, {
        name: { $ne: null },
        email: { $gt: '' },
        password: ['Zebra2Lamp'],
        confirmedPassword: 'other',
      }),
    ).toEqual({
      name: MESSAGES.username,
      email: MESSAGES.email,
      password: MESSAGES.password,
      confirmedPassword: MESSAGES.confirmedPassword,
    });
    expect(detailsOf(registerBodySchema, {})).toEqual({
      name: MESSAGES.username,
      email: MESSAGES.email,
      password: MESSAGES.password,
      confirmedPassword: MESSAGES.confirmedPassword,
    });
    expect(outcome(loginBodySchema, { email: 'alice@example.com', password: { $gt: '' } })).toEqual({
      message: MESSAGES.password,
      details: { password: MESSAGES.password },
    });
    // SPEC's lengths: e-mail 6 to 32, username 4 to 16, password 6 to 16.
    expect(detailsOf(loginBodySchema, { email: 'a@b.co', password: 'abc123' })).toEqual({});
    expect(
      detailsOf(loginBodySchema, { email: `${'a'.repeat(24)}@example.com`, password: 'abc123' }),
    ).toEqual({
      email: MESSAGES.email,
    });
    expect(detailsOf(registerBodySchema, { ...account, name: 'abc' })).toEqual({ name: MESSAGES.username });
    expect(detailsOf(registerBodySchema, { ...account, name: 'a'.repeat(17) })).toEqual({
      name: MESSAGES.username,
    });
  });

  it('refuses unknown fields, and a body that is not an object', () => {
    expect(outcome(registerBodySchema, { ...account, role: 'admin' })).toEqual({
      message: 'property role should not exist',
      details: { role: 'property role should not exist' },
    });
    expect(outcome(loginBodySchema, [account])).toEqual({
      message: 'The request body must be a JSON object.',
    });
  });

  it('takes exactly one edit, checks only its field, and a confirmation against the password', () => {
    expect(outcome(editUserBodySchema, { name: 'alice2' })).toEqual({});
    expect(detailsOf(editUserBodySchema, { email: 'bad' })).toEqual({ email: MESSAGES.email });
    expect(
      outcome(editUserBodySchema, { password: 'Otter9River', confirmedPassword: 'Otter9River' }),
    ).toEqual({});
    expect(outcome(editUserBodySchema, { password: 'Otter9River' })).toEqual({});
    expect(detailsOf(editUserBodySchema, { password: 'Otter9River', confirmedPassword: 'x' })).toEqual({
      confirmedPassword: MESSAGES.confirmedPassword,
    });
    for (const body of [{}, { name: 'alice2', email: 'alice@example.com' }]) {
      expect(outcome(editUserBodySchema, body)).toEqual({ message: USER_MESSAGES.oneEditField });
    }
    // An unknown field is named first, as in every other body.
    expect(outcome(editUserBodySchema, { points: 5 })).toEqual({
      message: 'property points should not exist',
      details: { points: 'property points should not exist' },
    });
  });
});

const create = {
  gameType: 'quick-battle',
  createdBy: { id: 'u1', name: 'alice' },
  duration: 32,
  passCode: '',
};

describe('room schemas', () => {
  it('accepts SPEC create payloads and answers bad fields with SPEC messages', () => {
    expect(outcome(createRoomBodySchema, create)).toEqual({});
    expect(
      outcome(createRoomBodySchema, { ...create, passCode: '0420', duration: 300, aiOpponent: true }),
    ).toEqual({});
    const { passCode: _open, ...withoutPasscode } = create;
    expect(outcome(createRoomBodySchema, withoutPasscode)).toEqual({});
    expect(
      detailsOf(createRoomBodySchema, { ...create, gameType: 'chess', duration: 15, passCode: '12345' }),
    ).toEqual({
      gameType: MESSAGES.gameType,
      duration: MESSAGES.duration,
      passCode: MESSAGES.createPasscode,
    });
    const operators = detailsOf(createRoomBodySchema, {
      ...create,
      passCode: { $ne: '' },
      createdBy: { id: { $gt: '' }, name: 'x' },
    });
    expect(Object.keys(operators).sort()).toEqual(['createdBy.id', 'passCode']);
    expect(Object.keys(detailsOf(createRoomBodySchema, { ...create, isAdmin: true }))).toEqual(['isAdmin']);
    expect(
      detailsOf(createRoomBodySchema, { ...create, createdBy: { id: 'x'.repeat(65), name: 'a' } }),
    ).toEqual({
      'createdBy.id': 'createdBy.id must be your user id.',
    });
  });

  it('lets the four intents through and refuses a raw whosTurn with its clear message', () => {
    for (const body of [
      { players: { playerId: 'u1', playerName: 'alice' }, passCode: '0420' },
      { players: { playerId: 'u1' } },
      { players: { playerId: 'u1', removePlayer: true } },
      { players: { playerId: 'u1', playerName: 'alice', removePlayer: true } },
      { whosTurnReadyPlayer: { player2: { turn: false, restart: true } } },
      { move: { number: 'random' } },
      { move: { number: 9, option: 'minus' } },
    ]) {
      expect(outcome(editRoomBodySchema, body)).toEqual({});
    }
    for (const body of [{ whosTurn: { currentNumber: 197 } }, { move: { number: 1 }, whosTurn: {} }]) {
      expect(outcome(editRoomBodySchema, body)).toEqual({
        message: ROOM_MESSAGES.rawWhosTurn,
        details: { whosTurn: ROOM_MESSAGES.rawWhosTurn },
      });
    }
  });

  it('refuses no intent or two with the one-intent message', () => {
    for (const body of [
      {},
      { passCode: ['0420'] },
      { move: { number: 1 }, whosTurnReadyPlayer: { player1: { turn: false, restart: true } } },
      { players: { playerId: 'u1', removePlayer: true }, move: { number: 1 } },
    ]) {
      expect(outcome(editRoomBodySchema, body)).toEqual({ message: ROOM_MESSAGES.oneIntent });
    }
  });

  it('refuses picks 0, 10, 2.5 and "5", unknown options, unknown keys and operator-shaped values', () => {
    for (const number of [0, 10, 2.5, '5', { $gt: 0 }, null]) {
      expect(outcome(editRoomBodySchema, { move: { number } })).toEqual({
        message: PICK,
        details: { 'move.number': PICK },
      });
    }
    expect(Object.keys(detailsOf(editRoomBodySchema, { move: { number: 3, option: 'triple' } }))).toEqual([
      'move.option',
    ]);
    expect(detailsOf(editRoomBodySchema, { move: { number: 3, total: 198 } })).toEqual({
      'move.total': 'property total should not exist',
    });
    expect(Object.keys(detailsOf(editRoomBodySchema, { players: { playerId: { $ne: null } } }))).toEqual([
      'players.playerId',
    ]);
    expect(
      Object.keys(detailsOf(editRoomBodySchema, { players: { playerId: 'u1', removePlayer: false } })),
    ).toEqual(['players.removePlayer']);
    expect(
      Object.keys(
        detailsOf(editRoomBodySchema, { whosTurnReadyPlayer: { player1: { turn: true, restart: true } } }),
      ),
    ).toEqual(['whosTurnReadyPlayer.player1.turn']);
    for (const ready of [{ player3: {} }, {}, { player1: {}, player2: {} }]) {
      expect(detailsOf(editRoomBodySchema, { whosTurnReadyPlayer: ready })).toEqual({
        whosTurnReadyPlayer: 'whosTurnReadyPlayer must name player1 or player2.',
      });
    }
  });

  it('reads the list query from strings', () => {
    expect(parseWith(listRoomsQuerySchema, { page: '2', freeSpot: 'true', gameType: 'tournament' })).toEqual({
      page: 2,
      freeSpot: true,
      gameType: 'tournament',
    });
    expect(parseWith(listRoomsQuerySchema, { freeSpot: 'false' })).toEqual({ freeSpot: false });
    expect(parseWith(listRoomsQuerySchema, { page: '9007199254740993' })).toEqual({ page: 9007199254740992 });
    expect(Object.keys(detailsOf(listRoomsQuerySchema, { page: '0', freeSpot: 'maybe' })).sort()).toEqual([
      'freeSpot',
      'page',
    ]);
  });
});

describe('reward schemas', () => {
  const pageMessage = 'page must be a whole number of at least 1.';
  const pageSizeMessage = 'pageSize must be a whole number from 1 to 100.';

  it('reads whole pages and page sizes in range, and refuses the rest with a clear message', () => {
    expect(parseWith(listRewardsQuerySchema, { page: '3', pageSize: '100' })).toEqual({
      page: 3,
      pageSize: 100,
    });
    expect(parseWith(listRewardsQuerySchema, { page: '1e300' })).toEqual({ page: 1e300 });
    for (const page of ['0', '-1', '1.5', 'abc', '', '1e400', ['1', '2']]) {
      expect(outcome(listRewardsQuerySchema, { page }).message).toBe(pageMessage);
    }
    for (const pageSize of ['0', '101', '2.5', 'abc', '1e3', '99999999999999999999']) {
      expect(outcome(listRewardsQuerySchema, { pageSize }).message).toBe(pageSizeMessage);
    }
    expect(outcome(listRewardsQuerySchema, { sort: 'points' }).message).toBe(
      'property sort should not exist',
    );
  });

  it('names a field no client may write before anything else (points, coins, titles)', () => {
    expect(outcome(editRewardBodySchema, { assets: { coins: 9 }, levelStatus: { level: 50 } }).message).toBe(
      'property assets should not exist',
    );
  });

  it('takes a create payload with a player id and a SPEC username', () => {
    expect(outcome(createRewardBodySchema, { playerId: 'u1', playerName: 'alice1' })).toEqual({});
    expect(detailsOf(createRewardBodySchema, { playerId: '', playerName: 'a!' })).toEqual({
      playerId: 'playerId must be your user id.',
      playerName: MESSAGES.username,
    });
  });
});

describe('NATS messages and push data', () => {
  it('reads rewards.list as JSON numbers with the HTTP words, and the defaults when absent', () => {
    expect(parseWith(listRewardsRequestSchema, {})).toEqual({ page: 1, pageSize: 20 });
    expect(parseWith(listRewardsRequestSchema, { page: 3.6e307, pageSize: 100 }).page).toBe(3.6e307);
    expect(outcome(listRewardsRequestSchema, { page: '2' }).message).toBe(
      'page must be a whole number of at least 1.',
    );
  });

  it('answers the refusal it is given for any problem (parseOr)', () => {
    const refusal = () => new AppError('NOT_FOUND', 'none');
    expect(() => parseOr(rewardIdSchema, 'x'.repeat(65), refusal)).toThrow(refusal());
    expect(parseOr(rewardIdSchema, 'u1', refusal)).toBe('u1');
  });

  it("reads a room-deleted push's reason as 'deleted' when it has none", () => {
    expect(roomGonePushDataSchema.parse({ roomId: 'r1', version: 3 })).toEqual({
      roomId: 'r1',
      version: 3,
      reason: 'deleted',
    });
    expect(roomGonePushDataSchema.safeParse({ roomId: 'r1' }).success).toBe(false);
  });
});
