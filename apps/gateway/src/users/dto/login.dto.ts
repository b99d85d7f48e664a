import { ApiProperty } from '@nestjs/swagger';
import type { LoginBody } from '@oasis198/contracts';
import { validateEmail, validatePassword } from '@oasis198/game-rules';
import { SpecRule } from '../../http/spec-rule';

export class LoginDto implements LoginBody {
  @ApiProperty({ example: 'player1@example.com' })
  @SpecRule(validateEmail)
  email!: string;

  @ApiProperty({ example: 'tiger2024x' })
  @SpecRule(validatePassword)
  password!: string;
}
