import { ROOM_MESSAGES } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { expectAppError } from '@oasis198/testing';
import { alice, bob, claims } from '../room.fixtures';
import { parseCreateRoom } from './create-room.dto';

const me = claims(alice);
const body = {
  gameType: 'quick-battle',
  createdBy: { id: alice.id, name: 'alice' },
  duration: 14,
  passCode: '',
};
const refused = (input: unknown) => expectAppError(() => parseCreateRoom(input, me));

describe('parseCreateRoom', () => {
  it('accepts SPEC §5 values; an absent passcode means an open room', () => {
    expect(parseCreateRoom(body, me)).toEqual({
      gameType: 'quick-battle',
      duration: 14,
      passCode: '',
      aiOpponent: false,
    });
    expect(parseCreateRoom({ ...body, aiOpponent: true }, me).aiOpponent).toBe(true);
    expect(() => parseCreateRoom({ ...body, aiOpponent: 'yes' }, me)).toThrow(
      'aiOpponent must be true or false.',
    );
    const { passCode: _omitted, ...withoutPasscode } = body;
    expect(parseCreateRoom({ ...withoutPasscode, duration: 300 }, me).passCode).toBe('');
    expect(parseCreateRoom({ ...body, passCode: '0007', gameType: 'tournament' }, me).passCode).toBe('0007');
  });

  it('refuses a createdBy that is not the caller with 403', () => {
    const error = refused({ ...body, createdBy: { id: bob.id, name: 'bob' } });
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe(ROOM_MESSAGES.identityMismatch);
  });

  it('uses the SPEC messages for every bad field at once', () => {
    expect(() => parseCreateRoom({ ...body, gameType: 'chess', duration: 15, passCode: '12a' }, me)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: {
          gameType: MESSAGES.gameType,
          duration: MESSAGES.duration,
          passCode: MESSAGES.createPasscode,
        },
      }),
    );
    expect(refused({ ...body, passCode: '12345' }).message).toBe(MESSAGES.createPasscode);
    expect(refused({ ...body, duration: '32' }).message).toBe(MESSAGES.duration);
    expect(refused({ ...body, extra: 1 }).code).toBe('VALIDATION');
    expect(refused({ ...body, createdBy: undefined }).code).toBe('VALIDATION');
  });
});
