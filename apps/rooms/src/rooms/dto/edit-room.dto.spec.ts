import { ROOM_MESSAGES } from '@oasis198/contracts';
import { expectAppError } from '@oasis198/testing';
import { alice, bob, claims } from '../room.fixtures';
import { parseEditIntent } from './edit-room.dto';

const me = claims(alice);
const refused = (body: unknown) => expectAppError(() => parseEditIntent(body, me));

const PICK = 'Pick a whole number from 1 to 9, or "random".';

describe('parseEditIntent', () => {
  it('reads the four SPEC intents', () => {
    expect(
      parseEditIntent({ players: { playerId: alice.id, playerName: 'alice' }, passCode: '12' }, me),
    ).toEqual({
      kind: 'join',
      passCode: '12',
    });
    expect(parseEditIntent({ players: { playerId: alice.id, removePlayer: true } }, me)).toEqual({
      kind: 'leave',
    });
    // SPEC §3: "players with removePlayer true": the join's object, its name included.
    expect(
      parseEditIntent({ players: { playerId: alice.id, playerName: 'alice', removePlayer: true } }, me),
    ).toEqual({ kind: 'leave' });
    expect(parseEditIntent({ whosTurnReadyPlayer: { player2: { turn: false, restart: true } } }, me)).toEqual(
      { kind: 'ready', seat: 'player2' },
    );
    expect(parseEditIntent({ move: { number: 'random' } }, me)).toEqual({
      kind: 'move',
      move: { number: 'random', option: 'plain' },
    });
    expect(parseEditIntent({ move: { number: 7, option: 'extra' } }, me)).toEqual({
      kind: 'move',
      move: { number: 7, option: 'extra' },
    });
  });

  it('refuses a raw whosTurn write with a clear 400', () => {
    expect(refused({ whosTurn: { currentNumber: 197 } })).toEqual({
      code: 'VALIDATION',
      message: ROOM_MESSAGES.rawWhosTurn,
    });
    expect(refused({ move: { number: 1 }, whosTurn: {} }).message).toBe(ROOM_MESSAGES.rawWhosTurn);
  });

  it('wants exactly one intent and no unknown fields', () => {
    expect(refused({}).message).toBe(ROOM_MESSAGES.oneIntent);
    expect(refused(null).message).toBe(ROOM_MESSAGES.oneIntent);
    expect(refused([]).message).toBe(ROOM_MESSAGES.oneIntent);
    expect(refused({ move: { number: 1 }, whosTurnReadyPlayer: { player1: {} } }).message).toBe(
      ROOM_MESSAGES.oneIntent,
    );
    expect(refused({ move: { number: 1 }, passCode: '1' }).message).toBe(ROOM_MESSAGES.oneIntent);
    expect(refused({ move: { number: 1 }, gameOver: true })).toEqual({
      code: 'VALIDATION',
      message: 'property gameOver should not exist',
    });
    expect(refused({ move: { number: 1, total: 198 } }).message).toBe('property total should not exist');
    expect(refused({ players: { playerId: alice.id, $where: '1' } }).code).toBe('VALIDATION');
  });

  it('refuses picks 0, 10, 2.5 and "5", operator objects and unknown options', () => {
    for (const number of [0, 10, 2.5, '5', { $gt: 0 }, null]) {
      expect(refused({ move: { number } })).toEqual({ code: 'VALIDATION', message: PICK });
    }
    expect(refused({ move: { number: 3, option: 'triple' } }).code).toBe('VALIDATION');
  });

  it('refuses acting as someone else (403) and malformed seats', () => {
    expect(refused({ players: { playerId: bob.id, playerName: 'bob' } })).toEqual({
      code: 'FORBIDDEN',
      message: ROOM_MESSAGES.identityMismatch,
    });
    expect(refused({ players: { playerId: bob.id, removePlayer: true } }).code).toBe('FORBIDDEN');
    expect(refused({ players: { playerId: alice.id, removePlayer: false } }).code).toBe('VALIDATION');
    expect(refused({ whosTurnReadyPlayer: { player3: { turn: false, restart: true } } }).code).toBe(
      'VALIDATION',
    );
    expect(refused({ whosTurnReadyPlayer: { player1: { turn: true, restart: true } } }).code).toBe(
      'VALIDATION',
    );
    expect(
      refused({
        whosTurnReadyPlayer: {
          player1: { turn: false, restart: true },
          player2: { turn: false, restart: true },
        },
      }).code,
    ).toBe('VALIDATION');
    expect(refused({ players: { playerId: alice.id }, passCode: 1234 }).code).toBe('VALIDATION');
  });
});
