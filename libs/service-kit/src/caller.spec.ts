import { AppError } from '@oasis198/contracts';
import { parseCaller } from './caller';

describe('parseCaller', () => {
  const caller = { userId: 'u1', name: 'alice', jti: 'j1', exp: 1 };

  it('returns exactly the verified claims', () => {
    expect(parseCaller({ caller: { ...caller, role: 'admin' }, body: {} })).toEqual(caller);
  });

  it.each([
    undefined,
    null,
    'x',
    {},
    { caller: null },
    { caller: { ...caller, userId: '' } },
    { caller: { ...caller, exp: '1' } },
  ])('refuses a request without a proper caller: %p', (request) => {
    expect(() => parseCaller(request)).toThrow(AppError);
    try {
      parseCaller(request);
    } catch (error) {
      expect((error as AppError).code).toBe('UNAUTHORIZED');
    }
  });
});
