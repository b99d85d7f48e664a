import {
  checkJoinPasscode,
  isGameType,
  isTurnDuration,
  MESSAGES,
  PASSCODE_LABEL,
  validateConfirmedPassword,
  validateCreatePasscode,
  validateDuration,
  validateEmail,
  validateGameType,
  validateLogin,
  validatePassword,
  validateRegistration,
  validateUsername,
} from './validation';

describe('SPEC §5 messages', () => {
  it('are word for word', () => {
    expect(MESSAGES.username).toBe(
      'Please enter a username between 4 and 16 characters. Use only letters and numbers. Symbols are not allowed.',
    );
    expect(MESSAGES.email).toBe('Please enter a valid email address.');
    expect(MESSAGES.password).toBe(
      'The password should be between 6 and 16 characters long. Numbers and letters should be used only. Symbols are not allowed.',
    );
    expect(MESSAGES.confirmedPassword).toBe('The passwords do not match.');
    expect(MESSAGES.createPasscode).toBe('Please, select only numbers or letters, 1 - 4 digits');
    expect(MESSAGES.wrongPasscode).toBe('Oops, try again!');
    expect(PASSCODE_LABEL).toBe('Choose a Passcode ( Only numbers, 1 - 4 digits )');
    // docs/adr/0001-game-model-where-spec-is-silent.md: our own messages where SPEC gives none.
    expect(MESSAGES.duration).toBe('Please choose a turn duration of 14, 32, 60 or 300 seconds.');
    expect(MESSAGES.gameType).toBe('Please choose a game type: quick-battle or tournament.');
  });
});

describe('validateUsername', () => {
  it.each(['abcd', 'Abc1', 'a'.repeat(16), 'Player2024', '1234'])('accepts %p', (name) => {
    expect(validateUsername(name)).toBeNull();
  });

  it.each([
    'abc',
    'a'.repeat(17),
    '',
    'ab cd',
    ' abcd',
    'abcd ',
    'ab_cd',
    'ab-cd',
    'abc!',
    'ab.cd',
    'Jürgen',
    'Ölaf12',
    'имяимя',
    '名前名前',
    'abcd\n',
    'abc😀',
  ])('refuses %p with the SPEC message', (name) => {
    expect(validateUsername(name)).toBe(MESSAGES.username);
  });

  it('refuses anything that is not a string', () => {
    for (const value of [undefined, null, 12345, ['abcd'], { name: 'abcd' }]) {
      expect(validateUsername(value)).toBe(MESSAGES.username);
    }
  });
});

describe('validateEmail', () => {
  it.each([
    'a@b.co',
    'player@example.com',
    'first.last+tag@mail.example.org',
    'A_B%c-d@x-y.io',
    `${'a'.repeat(25)}@ex.com`,
  ])('accepts %p', (email) => {
    expect(validateEmail(email)).toBeNull();
  });

  it.each([
    'a@b.c',
    'ab@c.d',
    `${'a'.repeat(26)}@ex.com`,
    'plainaddress',
    'no-at.example.com',
    'two@@example.com',
    'a@b@example.com',
    'space in@example.com',
    'user@example',
    'user@example.c',
    'user@example.c0m',
    'user@.com',
    'user@exa_mple.com',
    'üser@example.com',
    '@example.com',
    'user@',
    '',
  ])('refuses %p with the SPEC message', (email) => {
    expect(validateEmail(email)).toBe(MESSAGES.email);
  });

  it('counts 6 to 32 characters', () => {
    expect('a@b.co').toHaveLength(6);
    expect(`${'a'.repeat(25)}@ex.com`).toHaveLength(32);
    expect(validateEmail(null)).toBe(MESSAGES.email);
  });
});

describe('validatePassword and validateConfirmedPassword', () => {
  it.each(['abc123', 'ABCdef', '123456', 'a'.repeat(16)])('accepts %p', (password) => {
    expect(validatePassword(password)).toBeNull();
  });

  it.each([
    'abc12',
    'a'.repeat(17),
    '',
    'abc 123',
    'abc-123',
    'abc_123',
    '______',
    'pass!word',
    'pässwort1',
    'abc123\t',
  ])('refuses %p with the SPEC message', (password) => {
    expect(validatePassword(password)).toBe(MESSAGES.password);
  });

  it('needs the confirmation to equal the password', () => {
    expect(validateConfirmedPassword('abc123', 'abc123')).toBeNull();
    expect(validateConfirmedPassword('abc123', 'abc124')).toBe(MESSAGES.confirmedPassword);
    expect(validateConfirmedPassword('abc123', 'ABC123')).toBe(MESSAGES.confirmedPassword);
    expect(validateConfirmedPassword('abc123', '')).toBe(MESSAGES.confirmedPassword);
    expect(validateConfirmedPassword(undefined, undefined)).toBe(MESSAGES.confirmedPassword);
    expect(validateConfirmedPassword(123456, 123456)).toBe(MESSAGES.confirmedPassword);
  });
});

describe('room passcodes', () => {
  it('on create: empty means open, otherwise 1 to 4 digits', () => {
    for (const ok of ['', undefined, '1', '12', '123', '1234', '0000'])
      expect(validateCreatePasscode(ok)).toBeNull();
    for (const bad of ['12345', 'abcd', '12a', 'a', ' 123', '12 3', '-123', '1.5', '١٢٣', null, 1234]) {
      expect(validateCreatePasscode(bad)).toBe(MESSAGES.createPasscode);
    }
  });

  it('on join: at most 4 characters and equal to the room passcode', () => {
    expect(checkJoinPasscode('1234', '1234')).toBeNull();
    expect(checkJoinPasscode('7', '7')).toBeNull();
    expect(checkJoinPasscode('1235', '1234')).toBe(MESSAGES.wrongPasscode);
    expect(checkJoinPasscode('123', '1234')).toBe(MESSAGES.wrongPasscode);
    expect(checkJoinPasscode('12345', '1234')).toBe(MESSAGES.wrongPasscode);
    expect(checkJoinPasscode('', '1234')).toBe(MESSAGES.wrongPasscode);
    expect(checkJoinPasscode(1234, '1234')).toBe(MESSAGES.wrongPasscode);
    expect(checkJoinPasscode(undefined, '1234')).toBe(MESSAGES.wrongPasscode);
    // A room passcode longer than the input allows can never be typed.
    expect(checkJoinPasscode('12345', '12345')).toBe(MESSAGES.wrongPasscode);
  });

  it('on join: an open room needs no passcode', () => {
    expect(checkJoinPasscode(undefined, '')).toBeNull();
    expect(checkJoinPasscode('anything', '')).toBeNull();
  });
});

describe('duration and game type', () => {
  it('duration is one of 14, 32, 60, 300', () => {
    for (const ok of [14, 32, 60, 300]) {
      expect(isTurnDuration(ok)).toBe(true);
      expect(validateDuration(ok)).toBeNull();
    }
    for (const bad of [0, 15, 30, 120, 301, '32', null, undefined, 32.5]) {
      expect(isTurnDuration(bad)).toBe(false);
      expect(validateDuration(bad)).toBe(MESSAGES.duration);
    }
  });

  it('game type is quick-battle or tournament', () => {
    for (const ok of ['quick-battle', 'tournament']) {
      expect(isGameType(ok)).toBe(true);
      expect(validateGameType(ok)).toBeNull();
    }
    for (const bad of ['Quick-Battle', 'quick battle', 'tournaments', '', null, undefined]) {
      expect(isGameType(bad)).toBe(false);
      expect(validateGameType(bad)).toBe(MESSAGES.gameType);
    }
  });
});

describe('whole forms', () => {
  const good = {
    name: 'Player1',
    email: 'player@example.com',
    password: 'secret123',
    confirmedPassword: 'secret123',
  };

  it('validateRegistration is empty for a valid form', () => {
    expect(validateRegistration(good)).toEqual({});
  });

  it('validateRegistration returns every failing field with its message', () => {
    expect(
      validateRegistration({ name: 'ab', email: 'bad', password: 'sh', confirmedPassword: 'other' }),
    ).toEqual({
      name: MESSAGES.username,
      email: MESSAGES.email,
      password: MESSAGES.password,
      confirmedPassword: MESSAGES.confirmedPassword,
    });
    expect(validateRegistration({ ...good, email: 'x' })).toEqual({ email: MESSAGES.email });
    expect(validateRegistration({ ...good, confirmedPassword: 'secret124' })).toEqual({
      confirmedPassword: MESSAGES.confirmedPassword,
    });
    // A matching but invalid password fails on the password only.
    expect(validateRegistration({ ...good, password: 'a!', confirmedPassword: 'a!' })).toEqual({
      password: MESSAGES.password,
    });
  });

  it('validateLogin checks e-mail and password by the same rules', () => {
    expect(validateLogin({ email: good.email, password: good.password })).toEqual({});
    expect(validateLogin({ email: 'nope', password: 'x' })).toEqual({
      email: MESSAGES.email,
      password: MESSAGES.password,
    });
    expect(validateLogin({ email: good.email, password: 'has space' })).toEqual({
      password: MESSAGES.password,
    });
    expect(validateLogin({ email: undefined, password: good.password })).toEqual({ email: MESSAGES.email });
  });
});
