import { MESSAGES } from '@oasis198/game-rules';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { EditUserDto } from './edit-user.dto';
import { LoginDto } from './login.dto';
import { RegisterDto } from './register.dto';

/** The property -> message map the global ValidationPipe would answer with. */
async function errorsOf<T extends object>(type: new () => T, body: object): Promise<Record<string, string>> {
  const errors = await validate(plainToInstance(type, body), { whitelist: true, forbidNonWhitelisted: true });
  return Object.fromEntries(errors.map((e) => [e.property, Object.values(e.constraints ?? {})[0] ?? '']));
}

const valid = {
  name: 'alice1',
  email: 'alice@example.com',
  password: 'Zebra2Lamp',
  confirmedPassword: 'Zebra2Lamp',
};

describe('users DTOs (SPEC §5 at the edge)', () => {
  it('accepts a valid registration', async () => {
    expect(await errorsOf(RegisterDto, valid)).toEqual({});
  });

  it('answers each invalid field with its SPEC message, operators included', async () => {
    expect(
      await errorsOf(RegisterDto, {
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
    expect(await errorsOf(LoginDto, { email: 'alice@example.com', password: { $gt: '' } })).toEqual({
      password: MESSAGES.password,
    });
  });

  it('refuses unknown fields', async () => {
    expect(await errorsOf(RegisterDto, { ...valid, role: 'admin' })).toEqual({
      role: 'property role should not exist',
    });
    expect(await errorsOf(EditUserDto, { points: 5 })).toEqual({
      points: 'property points should not exist',
    });
  });

  it('checks only the fields an edit carries, and a confirmation against the password', async () => {
    expect(await errorsOf(EditUserDto, { name: 'alice2' })).toEqual({});
    expect(await errorsOf(EditUserDto, { email: 'bad' })).toEqual({ email: MESSAGES.email });
    expect(
      await errorsOf(EditUserDto, { password: 'Otter9River', confirmedPassword: 'Otter9River' }),
    ).toEqual({});
    expect(await errorsOf(EditUserDto, { password: 'Otter9River', confirmedPassword: 'x' })).toEqual({
      confirmedPassword: MESSAGES.confirmedPassword,
    });
  });
});
